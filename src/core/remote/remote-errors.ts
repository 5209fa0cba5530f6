/** A problem with the remote queue that the user must fix (its address, reaching it, a refused job); the message says how. */
export class RemoteQueueError extends Error {
  override name = 'RemoteQueueError';
}

/** A job's payload a worker will not run: unreadable, from an unknown version, or asking more than the worker allows. */
export class PayloadRefused extends Error {
  override name = 'PayloadRefused';
}
