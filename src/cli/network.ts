/** Proxy settings from the environment, the way curl and undici read them: the lowercase name wins. */
import { HTTP_URL, urlMessage, urlProblem } from '../config/url-setting.js';
import { ConfigError } from '../core/errors.js';
import type { ProxySettings } from '../remote/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export function proxyFromEnv(env: Env): ProxySettings | undefined {
  const pick = (name: string) => {
    const used = env[name.toLowerCase()] !== undefined ? name.toLowerCase() : name;
    const value = env[used];
    // A proxy URL is a URL setting like the others: the form wanted, never the value (it may carry a password).
    const problem = value ? urlProblem(value, HTTP_URL) : undefined;
    if (problem !== undefined) throw new ConfigError(urlMessage(used, HTTP_URL, 'http://proxy.internal:3128', problem));
    return value;
  };
  const settings = { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy: env.no_proxy ?? env.NO_PROXY };
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}
