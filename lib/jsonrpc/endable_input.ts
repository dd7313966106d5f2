/**
 * An input stream that its owner can end early, as if the peer had closed
 * it: a signal, or a peer gone from the output, takes the same way out as end
 * of input (every request already received is answered, then the loop ends).
 * @module
 */

/** A readable copy of an input, and a way to end it now. */
export interface EndableInput {
  readable: ReadableStream<Uint8Array>;
  /** Ends `readable` (after the chunk being passed on, if any); the rest of the input is left unread. */
  end(): void;
}

/** Wraps `input` so that {@link EndableInput.end} ends it at once. */
export function endableInput(input: ReadableStream<Uint8Array>): EndableInput {
  const reader = input.getReader();
  let end!: () => void;
  const ended = new Promise<{ done: true; value: undefined }>((resolve) => {
    end = () => resolve({ done: true, value: undefined });
  });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    reader.cancel().catch(() => {}); // The input failed or closed already: nothing left to read.
  };
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = finished ? { done: true as const, value: undefined } : await Promise.race([
        reader.read(),
        ended,
      ]);
      if (next.done) {
        finish();
        controller.close();
      } else {
        controller.enqueue(next.value);
      }
    },
    cancel: finish,
  }, { highWaterMark: 0 });
  return { readable, end };
}
