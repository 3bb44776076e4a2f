// hls.js ships its light build (no alternate audio, subtitles, DRM or CMCD; the nodes' playlists
// use none of them) without a declaration of its own: it is the same class with fewer features.
declare module 'hls.js/light' {
  export { default } from 'hls.js';
  export * from 'hls.js';
}
