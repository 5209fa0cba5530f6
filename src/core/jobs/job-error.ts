/** A problem the model made (unknown id, finished job): the tool turns it into an error result. */
export class JobError extends Error {
  override name = 'JobError';
}

/**
 * A run this session stopped following without ending it: a queue job that goes on on its
 * worker while the session quits. Its job stays running in the store, to be attached again.
 */
export class DetachedRun extends Error {
  override name = 'DetachedRun';
}
