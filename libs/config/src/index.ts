export { str, optionalStr, int, num, bool, oneOf, list, url, type VarSpec } from './vars.ts';
export { parseEnv, loadConfigOrExit, describeEnv, ConfigError, type EnvSpec, type Config } from './parse.ts';
