// Nodes: a node's status is what its creator wrote (the simulated nodes register themselves with theirs).
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

export function nodeStrategy(): Strategy {
  return { ...genericStrategy('nodes'), prepareForCreate: (_t, obj) => obj };
}
