/** Tool arguments as the model sent them, indented when they are valid JSON (else verbatim). */
export function formatJsonText(text: string): string {
  if (text.trim() === '') return '';
  try {
    return JSON.stringify(JSON.parse(text) as unknown, null, 2);
  } catch {
    return text;
  }
}
