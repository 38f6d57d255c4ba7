import type { Copy } from '@lucide/svelte';
import { flushSync, mount, unmount } from 'svelte';
import type { Attachment } from 'svelte/attachments';

/** Any Lucide icon component (they share one type). */
export type LucideIcon = typeof Copy;

/** Each icon drawn once per size, as the Lucide component draws it. */
const drawn = new Map<LucideIcon, Map<number, SVGElement>>();

/**
 * A copy of the icon's SVG. The Lucide component builds its SVG node by node with reactive
 * attributes each time; a message row has several icons and a scroll through a long chat
 * creates rows every few frames, so each icon is drawn once and copied after that.
 */
export function cloneIcon(icon: LucideIcon, size: number): SVGElement {
  let bySize = drawn.get(icon);
  if (bySize === undefined) {
    bySize = new Map();
    drawn.set(icon, bySize);
  }
  let svg = bySize.get(size);
  if (svg === undefined) {
    const host = document.createElement('div');
    const instance = mount(icon, { target: host, props: { size, 'aria-hidden': 'true' } });
    flushSync();
    const found = host.querySelector('svg');
    if (found === null) throw new Error('A Lucide icon drew no SVG element.');
    svg = found.cloneNode(true) as SVGElement;
    void unmount(instance);
    removeComments(svg);
    bySize.set(size, svg);
  }
  return svg.cloneNode(true) as SVGElement;
}

/** Svelte's anchor comments in the drawn SVG mean nothing in a copy. */
function removeComments(node: Node): void {
  for (const child of [...node.childNodes]) {
    if (child.nodeType === Node.COMMENT_NODE) child.remove();
    else removeComments(child);
  }
}

/** Puts a copy of the icon first in the element (and takes it out again when the icon changes). */
export function showIcon(icon: LucideIcon, size = 16): Attachment<Element> {
  return (element) => {
    const svg = cloneIcon(icon, size);
    element.prepend(svg);
    return () => svg.remove();
  };
}
