import { loadMarkdownRenderer, renderMarkdownOnDemand } from './markdown-loader.svelte';

/** The part of the Web Speech API's recognition object the composer uses. */
export interface Recognition {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onstart: (() => void) | null;
  onresult: ((event: RecognitionResultEvent) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  /** Ends listening once what was heard is recognised (a last result, then `end`). */
  stop(): void;
  /** Ends listening at once, dropping what was not yet recognised. */
  abort(): void;
}

/** What a result event carries: every result of the session so far, each final or not. */
export interface RecognitionResultEvent {
  results: ArrayLike<{ isFinal: boolean; 0: { transcript: string } }>;
}

type RecognitionConstructor = new () => Recognition;

/** The browser's speech recognition (standard or prefixed), or null where there is none. */
export function findSpeechRecognition(): RecognitionConstructor | null {
  const scope = window as unknown as Record<string, unknown>;
  const found = scope.SpeechRecognition ?? scope.webkitSpeechRecognition;
  return typeof found === 'function' ? (found as RecognitionConstructor) : null;
}

export function canSpeak(): boolean {
  return 'speechSynthesis' in window && typeof SpeechSynthesisUtterance === 'function';
}

/** A recognition error code in words a person can act on. */
export function describeDictationError(code: string): string {
  switch (code) {
    case 'not-allowed':
    case 'service-not-allowed':
      return 'the browser does not allow this page to use the microphone.';
    case 'audio-capture':
      return 'no microphone was found.';
    case 'network':
      return "the browser's speech service could not be reached.";
    case 'language-not-supported':
      return `the browser cannot recognise ${navigator.language}.`;
    default:
      return `${code}.`;
  }
}

/** The dictated text so far: final results, then the words still being recognised. */
export function readTranscript(event: RecognitionResultEvent): { final: string; interim: string } {
  let final = '';
  let interim = '';
  for (let index = 0; index < event.results.length; index += 1) {
    const result = event.results[index];
    if (result === undefined) continue;
    if (result.isFinal) final += result[0].transcript;
    else interim += result[0].transcript;
  }
  return { final, interim };
}

/**
 * An answer's Markdown as the words a voice should say: rendered (and sanitized) as it is shown,
 * then read as text, so no `#`, `*` or backticks are spoken.
 */
export async function toSpokenText(markdown: string): Promise<string> {
  await loadMarkdownRenderer();
  const html = renderMarkdownOnDemand(markdown);
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  return text.replace(/\n{2,}/g, '\n').trim();
}

/** Reads the answer aloud, cutting off whatever was being read before. */
export async function readAloud(markdown: string): Promise<void> {
  const text = await toSpokenText(markdown);
  speechSynthesis.cancel();
  speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}
