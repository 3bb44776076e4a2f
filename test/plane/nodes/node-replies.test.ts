import { describe, expect, it } from 'vitest';
import { streamsOf } from '../../../src/plane/nodes/node-replies.js';
import { figuresOf } from '../../../src/plane/sweeper/sweep-report.js';

// What the sweeper takes of a node's stream rows, figures included (issue 22: the Cameras page
// shows each camera's frame rate and bitrate); a bad figure is not shown rather than refused.
describe('streamsOf', () => {
  it('keeps the ingest figures of each row', () => {
    const rows = streamsOf({
      rows: [
        { name: 'a_main', state: 'live', fps: 25, bitrate_kbps: 2048.5, resolution: '1920x1080', codec: 'h264' },
        { name: 'b_main', state: 'failing', fps: null, bitrate_kbps: null, resolution: null, codec: null },
      ],
    });
    expect(rows!.map(figuresOf)).toEqual([
      { name: 'a_main', state: 'live', fps: 25, bitrate_kbps: 2048.5, resolution: '1920x1080', codec: 'h264' },
      { name: 'b_main', state: 'failing', fps: null, bitrate_kbps: null, resolution: null, codec: null },
    ]);
  });

  it('drops figures that are not finite non-negative numbers and cuts long texts; an older node without figures reads as null', () => {
    const [bad, old] = streamsOf({
      rows: [
        { name: 'x', state: 'live', fps: -1, bitrate_kbps: 'fast', resolution: 'r'.repeat(100), codec: 7 },
        { name: 'y', state: 'live' },
      ],
    })!;
    expect(figuresOf(bad!)).toEqual({
      name: 'x',
      state: 'live',
      fps: null,
      bitrate_kbps: null,
      resolution: 'r'.repeat(32),
      codec: null,
    });
    expect(figuresOf(old!)).toEqual({
      name: 'y',
      state: 'live',
      fps: null,
      bitrate_kbps: null,
      resolution: null,
      codec: null,
    });
  });
});
