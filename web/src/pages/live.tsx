import { errorSentence } from '../api/error-words.js';
import { LiveWall } from '../components/wall/wall.js';
import { useCameras } from '../hooks/use-cameras.js';
import { usePreferences } from '../hooks/use-preferences.js';
import { useSaveViews } from '../hooks/use-save-preferences.js';
import { usePhone } from '../hooks/use-wall.js';
import { parseWall, wallSearch, type WallAddress } from '../lib/wall-layout.js';
import { navigate, useLocation } from '../router.js';

/**
 * The live wall (issue 23): the cameras the user may see (statuses refreshed every 15 s), laid
 * out by the address or a saved view of the user's preferences (docs/console.md "Live wall").
 */
export function LivePage() {
  const cameras = useCameras({ refetchInterval: 15_000 });
  const prefs = usePreferences();
  const save = useSaveViews();
  const { search } = useLocation();
  const phone = usePhone();
  if (cameras.isPending) return <p className="empty">Loading cameras…</p>;
  if (cameras.isError) return <p className="error">The cameras could not be read.</p>;
  if (!cameras.data.length) return <p className="empty">No camera you may see yet.</p>;
  return (
    <LiveWall
      cameras={cameras.data}
      views={prefs.data?.views ?? null}
      viewsProblem={prefs.isError ? `Your saved views could not be read. ${errorSentence(prefs.error)}` : null}
      address={parseWall(search)}
      go={(a: WallAddress) => navigate(`/live${wallSearch(a)}`, { replace: true })}
      saveViews={(views) => save.mutateAsync(views)}
      phone={phone}
    />
  );
}
