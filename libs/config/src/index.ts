export {
  str,
  optionalStr,
  int,
  optionalInt,
  num,
  bool,
  oneOf,
  optionalOneOf,
  list,
  url,
  type VarSpec,
} from './vars.ts';
export { parseEnv, exitOnConfigError, describeEnv, ConfigError, type EnvSpec, type Config } from './parse.ts';
export { redactUrl } from './redact.ts';
