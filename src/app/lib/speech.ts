import type * as SpeechText from './speech-text';
import type { RecognitionResultEvent } from './speech-text';

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

/**
 * What dictation and reading aloud do with the words, loaded the first time either is used (the
 * buttons themselves need only the checks above).
 */
export const loadSpeechText = (): Promise<typeof SpeechText> => import('./speech-text');
