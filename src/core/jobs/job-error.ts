/** A problem the model made (unknown id, finished job): the tool turns it into an error result. */
export class JobError extends Error {
  override name = 'JobError';
}
