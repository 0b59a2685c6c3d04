import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node as YamlNode, Pair } from 'yaml';

/** Offset of the deepest node along `path` that exists (a missing key points at its parent). */
export function offsetOfPath(doc: Document.Parsed, path: readonly PropertyKey[]): number | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as YamlNode | null)?.range?.[0];
  for (const segment of path) {
    if (isMap(node)) {
      const pair = (node.items as Pair<YamlNode, YamlNode | null>[]).find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (!pair) break;
      offset = (pair.value ?? pair.key).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as YamlNode | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}
