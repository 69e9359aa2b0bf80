/** The error `fn` throws (fails the test when it does not). */
export async function errorOf(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}
