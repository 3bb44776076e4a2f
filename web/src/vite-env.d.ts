// import.meta.env (the service worker is registered in the build only, web/src/main.tsx).
/// <reference types="vite/client" />
