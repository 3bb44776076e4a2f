/**
 * Errors raised by the database driver, remembered by identity. Only such an error may mark
 * the database down: a socket error of a client's request (ECONNRESET "aborted" of a body)
 * or of a call to a node looks the same by code and message, and took every database route
 * to 503 when a stranger reset a few connections (issue 10, finding 1).
 */
const fromDriver = new WeakSet<object>();

/** Marks `err` as the driver's and returns it, for `throw driverError(err)` in a catch. */
export function driverError<T>(err: T): T {
  if (err !== null && typeof err === 'object') fromDriver.add(err);
  return err;
}

export function isDriverError(err: unknown): boolean {
  return err !== null && typeof err === 'object' && fromDriver.has(err);
}

/** `promise`, whose rejection is marked as the driver's. */
export function fromDriverCall<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((err: unknown) => {
    throw driverError(err);
  });
}
