/** Dictation's and reading aloud's handling of the words (see loadSpeechText in speech.ts). */
import { loadMarkdownRenderer, renderMarkdownOnDemand } from './markdown-loader.svelte';

/** What a result event carries: every result of the session so far, each final or not. */
export interface RecognitionResultEvent {
  results: ArrayLike<{ isFinal: boolean; 0: { transcript: string } }>;
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
