import { useSyncExternalStore } from 'react';
import type { ApprovalBroker, PendingApproval } from '../approval-broker.js';

/** The approval requests waiting for the user, oldest first. */
export function useApprovals(broker: ApprovalBroker): readonly PendingApproval[] {
  return useSyncExternalStore(broker.subscribe, broker.pending);
}
