/**
 * A chat title is shown as plain text in the sidebar, the top bar and search, so the Markdown a
 * model or a question may carry (`# Heading`, `**bold**`, `` `code` ``, `[link](url)`) is
 * reduced to its words. Only the inline syntax a one-line title can hold is handled; the core
 * may not import a Markdown library, and a title needs no more than this.
 */
export function toPlainTitle(text: string): string {
  return (
    text
      // Images and links keep their visible text.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      // Line starts: headings, quotes, list bullets and numbers.
      .replace(/^[ \t]*(?:#{1,6}(?=\s|$)|>+|[-*+](?=\s)|\d+[.)](?=\s))[ \t]*/gm, '')
      // Code spans, emphasis and strike-through markers; a lone `*` between words is kept.
      .replace(/`+/g, '')
      .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*])[*_](?=\S)([^*_]*?\S)[*_](?![\w*])/g, '$1$2')
      .replace(/\*\*+|__+|~~+/g, '')
      .replace(/^[*_#\s]+|[*_\s]+$/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
