/** The forge client a target's write-back settings name (none for `forge.type: none`: the branch is only pushed). */
import { ConfigError } from '../../core/errors.js';
import type { Secret } from '../../core/secret.js';
import type { ProxySettings } from '../network.js';
import type { ForgeClient } from './forge.js';
import { githubForge } from './github.js';
import { gitlabForge } from './gitlab.js';

export type { ForgeClient, ReviewRequest, ReviewRequestText } from './forge.js';
export { ForgeError } from './http.js';

export function createForge(
  forge: { type: 'github' | 'gitlab' | 'none'; apiUrl: string; project: string; token: Secret | undefined },
  proxy?: ProxySettings,
): ForgeClient | undefined {
  if (forge.type === 'none') return undefined;
  if (!forge.token) throw new ConfigError(`writeBack.forge.type ${forge.type} needs a token`);
  const opts = { apiUrl: forge.apiUrl, project: forge.project, token: forge.token, proxy };
  return forge.type === 'github' ? githubForge(opts) : gitlabForge(opts);
}
