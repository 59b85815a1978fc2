export { startDashboard, BOARD_PATH, type DashboardSettings, type RunningDashboard } from './server.ts';
export {
  dashboardEnv,
  credentialsOf,
  eventLogKeys,
  type DashboardConfig,
  type Credentials,
} from './config.ts';
export { buildOverview, summarizeJobs, type Overview, type PodSetRow } from './overview.ts';
export { authenticate, login, sessionValue, COOKIE_NAME } from './auth.ts';
