import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  allCameras,
  camera,
  cameraKeys,
  changeCamera,
  createCamera,
  deleteCamera,
  ingestFigures,
  play,
  probeSource,
  snapshotSource,
  type CameraChange,
} from '../api/cameras.js';
import { segmentsOf } from '../lib/recording.js';

/** Every camera the caller may see; `refetchInterval` keeps a grid's statuses fresh. */
export const useCameras = (opts: { refetchInterval?: number } = {}) =>
  useQuery({ queryKey: cameraKeys.all, queryFn: allCameras, refetchInterval: opts.refetchInterval });

/** The ingest figures of these cameras from the latest sweep, asked again every 10 s (a sweep's pace). */
export const useIngestFigures = (ids: string[]) =>
  useQuery({
    queryKey: cameraKeys.figures(ids),
    queryFn: () => ingestFigures(ids),
    enabled: ids.length > 0,
    refetchInterval: 10_000,
  });

export const useCamera = (id: string) => useQuery({ queryKey: cameraKeys.one(id), queryFn: () => camera(id) });

/**
 * "Test source": the node's answer about a source before a camera is saved with it. It changes
 * nothing, so nothing is invalidated; a source that cannot be read is a result (`ok` false, in
 * words), a refusal of the plane (bad_source_url, node_unreachable...) the mutation's error.
 */
export const useProbeSource = () => useMutation({ mutationFn: probeSource });
export const useSnapshotSource = () => useMutation({ mutationFn: snapshotSource });

/** The administrators' changes of the inventory: the list (and the camera's own page) read again after each. */
export function useCameraEdits() {
  const qc = useQueryClient();
  const again = async () => {
    await qc.invalidateQueries({ queryKey: cameraKeys.all });
    await qc.invalidateQueries({ queryKey: ['camera'] });
  };
  return {
    create: useMutation({ mutationFn: createCamera, onSuccess: again }),
    change: useMutation({
      mutationFn: (v: { id: string; body: CameraChange }) => changeCamera(v.id, v.body),
      onSuccess: again,
    }),
    remove: useMutation({ mutationFn: deleteCamera, onSuccess: again }),
  };
}

/**
 * A camera's recording over [from, from + seconds): the playback session and the segments its
 * playlist lists (the node's playlist is not the plane's API: read as text, no JSON type).
 */
export const useRecording = (id: string, from: number, seconds: number) =>
  useQuery({
    queryKey: cameraKeys.recording(id, from, seconds),
    queryFn: async () => {
      const session = await play(id, { intent: 'playback', from, duration: seconds });
      const res = await fetch(`${session.url}?token=${encodeURIComponent(session.token)}`);
      if (!res.ok) return { play: null, segments: [] };
      return { play: session, segments: segmentsOf(await res.text()) };
    },
  });
