/** obsync.yaml's sensitive fields and their values, resolved or (for targets not in use) as far as the environment gives them. */
import type { Document, LineCounter } from 'yaml';
import type { SensitiveValue } from '../manifests/carried.js';
import { withPassword } from '../manifests/credentials.js';
import { isSensitivePath, sensitivePathsOf, valuesAt } from '../manifests/fields.js';
import { interpolateDocument, type InterpolationContext } from '../manifests/interpolate.js';
import { documentValue } from '../manifests/parse.js';
import { configSchema } from './schema.js';
import { UNRESOLVED_REFERENCE } from './as-written.js';

/** The state URL holds a password: a credential, whatever the state schema marks. */
export const EXTRA_SENSITIVE = [['state', 'url']];

export const CONFIG_SENSITIVE_PATHS: readonly (readonly string[])[] = [...sensitivePathsOf(configSchema), ...EXTRA_SENSITIVE];

/**
 * The credentials of targets whose settings are not resolved (validate resolves none), as far as
 * the environment gives them (their files are not read): a `${env:SH_KEY}` credential is still a credential when
 * validate checks a manifest naming `leak ${env:SH_KEY}`. Nothing fails here; the values only join
 * the credential rule.
 */
export function unresolvedCredentials(pristine: Document, lineCounter: LineCounter, ctx: InterpolationContext): SensitiveValue[] {
  const only = (p: readonly PropertyKey[]) => isSensitivePath(p, CONFIG_SENSITIVE_PATHS);
  // The environment only: a target not in use has none of its files read.
  const noFiles = (): string => {
    throw new Error('not read');
  };
  interpolateDocument(pristine, lineCounter, { ...ctx, allowMissingEnv: true, only, readRef: noFiles });
  const { value } = documentValue('', pristine, lineCounter);
  return configSensitiveValues(value);
}

/** The resolved values of obsync.yaml's sensitive fields (a reference left as written is no value yet). */
export function configSensitiveValues(value: unknown): SensitiveValue[] {
  return CONFIG_SENSITIVE_PATHS.flatMap((pattern) =>
    valuesAt(value, [pattern])
      .filter((v) => !UNRESOLVED_REFERENCE.test(v))
      .flatMap((v) => withPassword(v, `the value of ${pattern.join('.')} in obsync.yaml`)),
  );
}
