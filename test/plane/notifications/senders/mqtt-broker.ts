import { createServer, type Socket } from 'node:net';
import { Aedes } from 'aedes';

/** A login the broker was offered: what the sender passed on from the channel's settings. */
export interface BrokerLogin {
  username: string | null;
  password: string | null;
}

/**
 * A PUBLISH as a client sent it. A subscriber cannot see the publisher's retain flag (MQTT 3.1.1
 * §3.3.1.3: the broker clears it on messages to existing subscriptions), so retain is read here.
 */
export interface BrokerPublish {
  clientId: string;
  topic: string;
  qos: number;
  retain: boolean;
}

export interface TestBroker {
  /** mqtt://127.0.0.1:<port> */
  url: string;
  port: number;
  /** every CONNECT's credentials, in order (the broker accepts them all) */
  logins: BrokerLogin[];
  /** every PUBLISH from a client, in order */
  published: BrokerPublish[];
  close(): Promise<void>;
}

/**
 * A real MQTT 3.1.1/5 broker (aedes, from npm) in the test's process on a loopback port of its own,
 * so the MQTT tests need no broker on the machine (issue 25: `npm ci && npm test` with Node alone)
 * and two files running at once never share topics or connections. Subscribers connect to `url`
 * with mqtt.js as any client would; QoS 1, retain and PUBACK are the broker's real handling.
 */
export async function startBroker(): Promise<TestBroker> {
  const logins: BrokerLogin[] = [];
  const published: BrokerPublish[] = [];
  const broker = await Aedes.createBroker({
    authenticate: (_client, username, password, done) => {
      logins.push({ username: username ?? null, password: password ? password.toString() : null });
      done(null, true);
    },
  });
  broker.on('publish', (packet, client) => {
    // client null: the broker's own messages ($SYS), not a client's.
    if (client) published.push({ clientId: client.id, topic: packet.topic, qos: packet.qos, retain: packet.retain });
  });
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    logins,
    published,
    close: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      // Connections the broker did not end itself (a client still connecting) must not hold the server open.
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
