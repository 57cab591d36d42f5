/** Appends `item` to the list at `key`, starting the list when there is none. */
export function pushTo<K, V>(lists: Map<K, V[]>, key: K, item: V): void {
  const list = lists.get(key);
  if (list) list.push(item);
  else lists.set(key, [item]);
}
