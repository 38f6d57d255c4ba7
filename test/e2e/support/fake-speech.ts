/**
 * Headless Chromium has SpeechRecognition and speechSynthesis, but no microphone and no voices:
 * its recognition ends at once with an error and nothing is spoken. This stand-in, installed
 * with `page.addInitScript(installFakeSpeech)` under both the standard and the prefixed name,
 * behaves as the browser's does: start() fires `start` a moment later, results come as a
 * cumulative SpeechRecognitionResultList (interim ones replaced as they firm up, `resultIndex`
 * at the first that changed), stop() firms up an unfinished result and then fires `end`, and
 * handlers are both `on…` properties and event listeners. The test speaks through
 * `window.fakeSpeech.hear(transcript, isFinal)` (or has it fail with `fail(code)`); what speechSynthesis was asked to say is in
 * `window.fakeSpeech.spoken`.
 */
export function installFakeSpeech(): void {
  interface HeardResult {
    transcript: string;
    isFinal: boolean;
  }
  type Handler = ((event: Event) => void) | null;

  /** The results as the browser hands them over: array-like, with item(). */
  function toResultList(results: readonly HeardResult[]) {
    const list = results.map((result) => {
      const alternative = { transcript: result.transcript, confidence: 0.9 };
      return { isFinal: result.isFinal, length: 1, 0: alternative, item: (index: number) => (index === 0 ? alternative : null) };
    });
    return Object.assign(list, { item: (index: number) => list[index] ?? null });
  }

  class FakeSpeechRecognition extends EventTarget {
    /** The recognition the microphone feeds: started and not yet ended. */
    static listening: FakeSpeechRecognition | null = null;
    lang = '';
    continuous = false;
    interimResults = false;
    maxAlternatives = 1;
    onstart: Handler = null;
    onresult: Handler = null;
    onerror: Handler = null;
    onend: Handler = null;
    private results: HeardResult[] = [];
    private isStarted = false;

    start(): void {
      if (this.isStarted) throw new DOMException('recognition has already started', 'InvalidStateError');
      this.isStarted = true;
      this.results = [];
      setTimeout(() => {
        FakeSpeechRecognition.listening = this;
        this.fire('start', {});
      }, 0);
    }

    stop(): void {
      if (!this.isStarted) return;
      setTimeout(() => {
        const last = this.results[this.results.length - 1];
        if (last !== undefined && !last.isFinal) {
          last.isFinal = true;
          this.fireResults(this.results.length - 1);
        }
        this.end();
      }, 0);
    }

    abort(): void {
      if (!this.isStarted) return;
      setTimeout(() => {
        this.fire('error', { error: 'aborted', message: '' });
        this.end();
      }, 0);
    }

    /** The microphone heard `transcript`: it replaces the unfinished result, final or not. */
    hear(transcript: string, isFinal: boolean): void {
      if (FakeSpeechRecognition.listening !== this) throw new Error('The recognition is not listening.');
      const last = this.results[this.results.length - 1];
      if (last !== undefined && !last.isFinal) this.results.pop();
      if (!isFinal && !this.interimResults) return;
      this.results.push({ transcript, isFinal });
      this.fireResults(this.results.length - 1);
      // A recognition that is not continuous ends after its first final result.
      if (isFinal && !this.continuous) this.stop();
    }

    /** The browser gave up: an `error` with this code, then `end`. */
    fail(code: string): void {
      if (FakeSpeechRecognition.listening !== this) throw new Error('The recognition is not listening.');
      this.fire('error', { error: code, message: '' });
      this.end();
    }

    private fireResults(resultIndex: number): void {
      this.fire('result', { resultIndex, results: toResultList(this.results) });
    }

    private end(): void {
      this.isStarted = false;
      if (FakeSpeechRecognition.listening === this) FakeSpeechRecognition.listening = null;
      this.fire('end', {});
    }

    private fire(type: 'start' | 'result' | 'error' | 'end', fields: object): void {
      const event = Object.assign(new Event(type), fields);
      const handler = { start: this.onstart, result: this.onresult, error: this.onerror, end: this.onend }[type];
      handler?.call(this, event);
      this.dispatchEvent(event);
    }
  }

  const spoken: string[] = [];
  const scope = window as unknown as Record<string, unknown>;
  scope.SpeechRecognition = FakeSpeechRecognition;
  scope.webkitSpeechRecognition = FakeSpeechRecognition;
  scope.fakeSpeech = {
    spoken,
    hear(transcript: string, isFinal: boolean): void {
      const listening = FakeSpeechRecognition.listening;
      if (listening === null) throw new Error('No recognition is listening.');
      listening.hear(transcript, isFinal);
    },
    fail(code: string): void {
      const listening = FakeSpeechRecognition.listening;
      if (listening === null) throw new Error('No recognition is listening.');
      listening.fail(code);
    },
  };
  // Speaking is recorded and takes no time: the utterance starts and ends on the next tick.
  speechSynthesis.cancel = () => undefined;
  speechSynthesis.speak = (utterance: SpeechSynthesisUtterance) => {
    spoken.push(utterance.text);
    setTimeout(() => {
      utterance.dispatchEvent(new Event('start'));
      utterance.dispatchEvent(new Event('end'));
    }, 0);
  };
}

/** Reads `window.fakeSpeech` from the page. */
export interface FakeSpeechWindow {
  fakeSpeech: { spoken: string[]; hear(transcript: string, isFinal: boolean): void; fail(code: string): void };
}
