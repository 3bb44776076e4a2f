import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import { iso, parseTimestamp } from '../../common/time.js';
import { resolveInside } from '../../common/resolve-inside.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { streamName, type CamerasService } from '../cameras/cameras.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient, NodeDownload } from '../nodes/node-client.js';
import { NodeCallFailure } from '../nodes/node-client.js';
import { asRouteError } from '../node-ops/route-error.js';
import type { ExportKey } from './export-key.js';
import { contentDisposition, exportFileName, planeZone } from './export-name.js';
import { exportZip, manifestBytes, spool } from './export-zip.js';
import { signViewerToken } from './viewer-token.js';
import type { ExportQuery } from './exports.schemas.js';

/** One export as it is audited and described. */
interface Exported {
  p: Principal;
  camera: { id: string; name: string; org_id: string; node_id: string };
  kind: 'main' | 'sub';
  fromSecs: number;
  secs: number;
  withManifest: boolean;
}

/** What the route sends: the headers' values and the body, with what to remove once it is sent. */
export interface ExportReply {
  contentType: 'video/mp4' | 'application/zip';
  disposition: string;
  length: number | null;
  body: Readable;
  cleanup(): Promise<void>;
}

export interface ExportsDeps {
  db: Db;
  clock: Clock;
  audit: AuditService;
  cameras: Pick<CamerasService, 'visible'>;
  nodes: Pick<NodesService, 'credentials'>;
  nodeClient: NodeClient;
  /** the user's chosen zone (preferences), null when none: the file name's zone */
  userZone: (p: Principal) => Promise<string | null>;
  key: ExportKey;
  /** `dvr_export_max_secs` as the settings hold it now */
  maxSecs: () => Promise<number>;
  /** `<data dir>/temp`: where an MP4 is spooled while its zip's manifest is made */
  tempDir: string;
  /** how long the node may take to make the file before its first byte (it cuts the range with ffmpeg first) */
  nodeTimeoutMs: number;
  log: Logger;
}

/**
 * Exports of recorded video through the plane (document 4 §14, docs/exports.md): the rights of
 * viewing, the node's MP4 streamed through, and with `manifest=1` a zip whose manifest is signed
 * with the plane's export key. Audited `media.export` once the node has the file.
 */
export class ExportsService {
  constructor(private readonly d: ExportsDeps) {}

  async publicKey(): Promise<{ alg: 'Ed25519'; key: string }> {
    return { alg: 'Ed25519', key: await this.d.key.publicPem() };
  }

  async export(p: Principal, rawId: string, q: ExportQuery): Promise<ExportReply> {
    const { d } = this;
    const camera = await d.cameras.visible(p, rawId);
    const fromDate = parseTimestamp(q.from);
    if (!fromDate || fromDate.getTime() < 0) throw errors.badRequest('bad_range');
    // The node's range is whole seconds: a fraction is dropped, and the manifest says the range exported.
    const fromSecs = Math.floor(fromDate.getTime() / 1000);
    const max = await d.maxSecs();
    if (q.duration > max) throw errors.exportTooLong(max);
    const kind = q.stream ?? 'main';
    if (kind === 'sub' && camera.sub_source === null) throw errors.badRequest('bad_profile');
    const withManifest = q.manifest === 1;
    const stream = streamName(camera.id, kind === 'sub' ? 'SUB' : 'MAIN');

    const node = await d.nodes.credentials(camera.node_id);
    if (!node) throw errors.notFound();
    if (node.authBackendSecret === null) throw errors.conflict('viewer_secret_unset');
    const token = await signViewerToken(node.authBackendSecret, d.clock.now(), {
      userId: p.userId,
      name: p.name,
      stream,
      cameraId: camera.id,
    });
    let download: NodeDownload;
    try {
      download = await d.nodeClient
        .at({ url: node.url, apiToken: '' })
        .exportMp4(stream, fromSecs, q.duration, token, d.nodeTimeoutMs);
    } catch (err) {
      throw refusalOf(err);
    }

    const zone = (await d.userZone(p).catch(() => null)) ?? planeZone();
    const name = exportFileName(camera.name, fromSecs * 1000, q.duration, zone, withManifest ? 'zip' : 'mp4');
    const what: Exported = { p, camera, kind, fromSecs, secs: q.duration, withManifest };
    if (withManifest) return this.zip(download, what, contentDisposition(name));
    try {
      await this.record(what);
    } catch (err) {
      download.body.destroy();
      throw err;
    }
    return {
      contentType: 'video/mp4',
      disposition: contentDisposition(name),
      length: download.length,
      body: download.body,
      cleanup: async () => {
        download.body.destroy();
      },
    };
  }

  /** `media.export` in the camera's organisation, once the node has made the file; its id for the manifest. */
  private record(e: Exported): Promise<string> {
    const { camera } = e;
    return this.d.db.transaction().execute((trx) =>
      this.d.audit.record(trx, {
        actor: actorOf(e.p),
        orgId: camera.org_id,
        nodeId: camera.node_id,
        action: 'media.export',
        objectType: 'camera',
        objectId: camera.id,
        objectName: camera.name,
        params: {
          camera_id: camera.id,
          from: iso(e.fromSecs * 1000),
          duration: e.secs,
          stream: e.kind,
          manifest: e.withManifest,
        },
      }),
    );
  }

  /**
   * Spools the MP4 (hashing it), then audits (the whole file is here), signs the manifest, and
   * streams the zip from the spooled file, which `cleanup` removes once it is sent.
   */
  private async zip(download: NodeDownload, e: Exported, disposition: string): Promise<ExportReply> {
    await mkdir(this.d.tempDir, { recursive: true, mode: 0o700 });
    const file = resolveInside(this.d.tempDir, `export-${randomUUID()}.mp4`);
    const cleanup = () => rm(file, { force: true });
    let spooled: { sha256: string; size: number };
    try {
      spooled = await spool(download.body, file);
    } catch (err) {
      download.body.destroy();
      await cleanup();
      this.d.log.warn({ err: (err as Error).message }, 'export not spooled');
      // The node's body broke off, or the temp folder refused the file: no export.
      throw errors.exportFailed();
    }
    try {
      const auditId = await this.record(e);
      const exportedAt = this.d.clock.now();
      const bytes = manifestBytes({
        camera_id: e.camera.id,
        camera_name: e.camera.name,
        stream: e.kind,
        from: iso(e.fromSecs * 1000),
        to: iso((e.fromSecs + e.secs) * 1000),
        sha256: spooled.sha256,
        exported_by: e.p.name,
        exported_at: iso(exportedAt),
        audit_id: auditId,
      });
      const signature = await this.d.key.sign(bytes);
      const zip = await exportZip(file, spooled.size, bytes, signature, new Date(exportedAt));
      return { contentType: 'application/zip', disposition, length: zip.size, body: zip.stream, cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  }
}

/** The node's refusal as the plane answers it (docs/exports.md has the table). */
function refusalOf(err: unknown): unknown {
  if (!(err instanceof NodeCallFailure) || err.reason !== 'status') return asRouteError(err);
  if (err.nodeStatus === 404) return errors.noRecording();
  if (err.nodeStatus === 400) return errors.badRequest('bad_range');
  if (err.nodeStatus === 500) return errors.exportFailed();
  return asRouteError(err);
}
