/**
 * A stub provider response that streams OpenAI chat tokens one by one (a timer tick apart),
 * then optionally goes silent, and records whether the client left it open.
 */
export interface TokenStream {
  response: Response;
  /** True until the client cancelled the body or read it to the end. */
  readonly isOpen: boolean;
  readonly sentTokens: number;
}

export interface TokenStreamOptions {
  tokens: string[];
  /** After the tokens: finish properly, or send nothing more (a stall). */
  after: 'finish' | 'silence';
  /** Send a keep-alive comment this often during the silence (ms), or never. */
  keepAliveEveryMs?: number;
  /** Stop the keep-alives and finish after this long in the silence (ms). */
  finishAfterSilenceMs?: number;
  tickMs?: number;
}

const encoder = new TextEncoder();
const tokenFrame = (text: string) =>
  encoder.encode(`data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`);
const FINISH = encoder.encode('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createTokenStream(options: TokenStreamOptions): TokenStream {
  let isOpen = true;
  let sent = 0;
  let timers: ReturnType<typeof setTimeout>[] = [];
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent < options.tokens.length) {
        await wait(options.tickMs ?? 1);
        if (!isOpen) return;
        controller.enqueue(tokenFrame(options.tokens[sent] ?? ''));
        sent++;
        return;
      }
      if (options.after === 'finish') {
        controller.enqueue(FINISH);
        controller.close();
        isOpen = false;
        return;
      }
      // Silence: this pull never settles on its own unless keep-alives or a late finish come.
      await new Promise<void>((resolve) => {
        if (options.keepAliveEveryMs !== undefined) {
          const keepAlive = setInterval(() => {
            if (isOpen) controller.enqueue(encoder.encode(': keep-alive\n\n'));
          }, options.keepAliveEveryMs);
          timers.push(keepAlive);
        }
        if (options.finishAfterSilenceMs !== undefined) {
          timers.push(
            setTimeout(() => {
              for (const timer of timers) clearInterval(timer);
              if (!isOpen) return;
              controller.enqueue(FINISH);
              controller.close();
              isOpen = false;
              resolve();
            }, options.finishAfterSilenceMs),
          );
        }
      });
    },
    cancel() {
      isOpen = false;
      for (const timer of timers) clearInterval(timer);
      timers = [];
    },
  });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    get isOpen() {
      return isOpen;
    },
    get sentTokens() {
      return sent;
    },
  };
}
