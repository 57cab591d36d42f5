/** Proxy settings from the environment, the way curl and undici read them: the lowercase name wins. */
import type { ProxySettings } from '../remote/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export function proxyFromEnv(env: Env): ProxySettings | undefined {
  const pick = (name: string) => env[name.toLowerCase()] ?? env[name];
  const settings = { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy: pick('NO_PROXY') };
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}
