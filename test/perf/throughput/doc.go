// Package throughput measures how fast a scheduler places a batch of pending
// pods on a fresh local control plane (etcd and kube-apiserver, no kubelets):
// binds per second from a pod watch, and the scheduler process's CPU time and
// peak RSS. The schedulers under test run as separate processes.
package throughput
