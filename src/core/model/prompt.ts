import { z } from 'zod';

/** A saved prompt: a title to find it by and a text that may hold `{{variables}}`. */
export const promptSchema = z.object({
  id: z.string().min(1),
  title: z.string().trim().min(1, 'A prompt needs a title').max(200),
  text: z.string().min(1, 'A prompt needs some text').max(100_000),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type SavedPrompt = z.infer<typeof promptSchema>;

/** `{{ name }}`: letters, digits, spaces, `_`, `-` and `.`; spaces around the name are ignored. */
const VARIABLE_PATTERN = /\{\{\s*([\p{L}\p{N}_.-](?:[\p{L}\p{N} _.-]*[\p{L}\p{N}_.-])?)\s*\}\}/gu;

/** The variables a prompt's text names, each once, in the order they first appear. */
export function extractPromptVariables(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(VARIABLE_PATTERN)) {
    const name = match[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The text with each variable replaced by its value; a variable without a value stays as it
 * was written. Values are inserted as given: `{{x}}` inside a value is not expanded again.
 */
export function fillPromptVariables(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(VARIABLE_PATTERN, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? whole) : whole,
  );
}

/**
 * Prompts whose title (first) or text holds every word of the query, case-insensitively;
 * title matches come before text-only matches, each group by title.
 */
export function filterPrompts(prompts: readonly SavedPrompt[], query: string): SavedPrompt[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter((word) => word.length > 0);
  const has = (haystack: string) => words.every((word) => haystack.includes(word));
  const byTitle = (a: SavedPrompt, b: SavedPrompt) => a.title.localeCompare(b.title);
  const inTitle = prompts.filter((p) => has(p.title.toLocaleLowerCase())).sort(byTitle);
  const inText = prompts
    .filter((p) => !inTitle.includes(p) && has(p.text.toLocaleLowerCase()))
    .sort(byTitle);
  return [...inTitle, ...inText];
}

/**
 * The prompt query when the composer's draft is a `/` command: a slash at the very start and
 * no line break yet; null otherwise.
 */
export function readSlashQuery(draft: string): string | null {
  if (!draft.startsWith('/') || draft.includes('\n')) return null;
  return draft.slice(1);
}
