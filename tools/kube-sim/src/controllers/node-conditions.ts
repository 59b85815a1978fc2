// The conditions a healthy kubelet reports for its node: Ready, and no memory, disk or PID pressure. One
// copy for kube-sim's simulated nodes and the node agent's (which imports it as @podset/kube-sim/node-conditions
// without loading the server).

// A type, not an interface: it must fit kube-sim's JSON object type, which has an index signature.
export type NodeCondition = {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
};

/** A healthy node's conditions, each as of `now` (heartbeat and transition). */
export function healthyNodeConditions(now: string): NodeCondition[] {
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return [
    condition(
      'MemoryPressure',
      'False',
      'KubeletHasSufficientMemory',
      'kubelet has sufficient memory available',
    ),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}
