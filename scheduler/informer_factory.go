package scheduler

import "k8s.io/client-go/informers"

// InformerFactory returns the informer factory whose pod and node caches the
// scheduler fills. Other components of the same process (the rebalancer)
// read pods and nodes from it instead of keeping a second copy of each.
func (s *Scheduler) InformerFactory() informers.SharedInformerFactory { return s.informerFactory }
