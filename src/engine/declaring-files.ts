/**
 * The manifest file each owned object was declared in, as the inventory records it: relative to
 * the project folder with `/` between folders, so runs from another checkout of the same
 * repository (another CI runner, a replica's mount) record and compare the same names.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { DeclaringFiles, DesiredResource, ManifestFiles } from '../core/resource.js';

export function declaringFiles(manifests: ManifestFiles): DeclaringFiles {
  // Many objects share a file: each file's name is made once.
  const names = new Map<string, string>();
  const nameOf = (file: string): string => {
    let name = names.get(file);
    if (name === undefined) {
      const rel = relative(manifests.root, file);
      name = rel === '' || isAbsolute(rel) ? file : rel.split(sep).join('/');
      names.set(file, name);
    }
    return name;
  };
  return {
    of: (res: DesiredResource) => nameOf(res.source.file),
    empty: new Set(manifests.empty.map(nameOf)),
  };
}
