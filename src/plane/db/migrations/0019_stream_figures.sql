-- Each stream's state and ingest figures (frames per second, bitrate, resolution, codec) as the
-- latest sweep read them from the node (issue 22: the Cameras page shows them beside each camera).
-- Kept beside the node's telemetry frame, written in the same statement once per sweep, so a camera
-- page costs one read and no call to a node; the frame itself stays as document 1 defines it.
alter table monitor_node_frames add column streams json;
