/**
 * The server's webhook URL checks (reference §1.5, §3.3): no DNS resolution, only literal
 * private/reserved addresses and `localhost` names are refused.
 */
function privateIpv4(host: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return false;
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    // IETF assignments, benchmarking and documentation ranges (the server's ADDITIONAL_RESERVED_IPV4_SUBNETS).
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  );
}

function privateIpv6(host: string): boolean {
  if (!host.startsWith('[')) return false;
  const ip = host.slice(1, -1).toLowerCase();
  if (ip === '::1' || ip === '::') return true;
  if (/^f[cd][0-9a-f]{0,2}:/.test(ip) || /^fe[89ab][0-9a-f]?:/.test(ip)) return true;
  // Multicast, documentation (2001:db8::/32) and discard-only (100::/64).
  if (/^ff[0-9a-f]{0,2}:/.test(ip) || /^2001:0?db8:/.test(ip) || /^100::/.test(ip)) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  return mapped?.[1] !== undefined && privateIpv4(mapped[1]);
}

export function webhookUrlProblem(raw: string, service: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Webhook URL is invalid';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Webhook URL must use HTTP or HTTPS';
  const host = url.hostname.toLowerCase();
  if (service === 'slack' && !host.endsWith('slack.com')) return `Slack Webhook URL ${raw} does not have hostname that ends in 'slack.com'`;
  if (host === 'localhost' || host.endsWith('.localhost') || privateIpv4(host) || privateIpv6(host)) {
    return 'Webhook URL resolves to a private or reserved address.';
  }
  return undefined;
}
