/** obsync's version (kept equal to package.json's by a test) and the line `obsync version` prints. */
export const VERSION = '0.1.0';

export function versionText(): string {
  return `obsync ${VERSION}\nnode ${process.version}\nplatform ${process.platform}-${process.arch}`;
}
