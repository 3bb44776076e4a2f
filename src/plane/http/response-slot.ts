import type { FastifyReply } from 'fastify';

/**
 * Runs `work` under one of the shared response slots (document 2, Limits: cards, attachment
 * downloads and previews), taken before the work and held until the reply's body ends or its
 * connection breaks; a failure gives it back at once. No slot free: `take` throws (429).
 */
export async function underResponseSlot<T>(
  reply: FastifyReply,
  slots: { takeSlot(): () => void },
  work: () => Promise<T>,
): Promise<T> {
  const release = slots.takeSlot();
  reply.raw.once('close', release);
  reply.raw.once('finish', release);
  try {
    return await work();
  } catch (err) {
    release();
    throw err;
  }
}
