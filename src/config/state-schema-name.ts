/** A PostgreSQL identifier that needs no quoting: state.schema of obsync.yaml and OBSYNC_STATE_SCHEMA follow it. */
export const STATE_SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
export const STATE_SCHEMA_RULE = 'a schema name is lowercase letters, digits and "_" (at most 63), not starting with a digit';
