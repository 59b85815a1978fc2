// pods/binding (POST): what the scheduler writes to put a pod on a node (spec.nodeName).
import { podWrite } from './pod-write.ts';

export const binding = podWrite((api, ns, name, body, opts) => api.bind(ns, name, body, opts));
