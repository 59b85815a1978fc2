// pods/eviction (POST): a delete that PodDisruptionBudgets may refuse (429).
import { podWrite } from './pod-write.ts';

export const eviction = podWrite((api, ns, name, body, opts) => {
  api.evict(ns, name, body, opts);
});
