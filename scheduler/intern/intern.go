/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package intern makes the informer's pods and nodes share the parts that
// many of them hold in equal copies: the replicas of one workload carry the
// same labels, resource lists, tolerations and strings, and nodes of one
// machine shape the same capacity. Decoding gives every object its own
// copies, several kilobytes per pod; a Table replaces each by the first
// equal value it saw, so the decoded copies become garbage at once.
//
// The shared values must never be changed. Informer objects are read-only
// anyway (every reader of the cache shares them), and a DeepCopy still
// gets copies of its own.
package intern

import (
	"hash/maphash"
	"maps"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultMaxEntries bounds each of a Table's kinds of values; a full kind
// starts afresh.
const DefaultMaxEntries = 4096

// Table is a set of canonical values, safe for concurrent use. Each kind
// (strings, resource lists, label maps, ...) holds at most its maximum of
// entries; when one is full it is emptied, so a cluster of many distinct
// values costs a bounded table and a little less sharing, never a leak:
// objects keep the values they were given.
type Table struct {
	mu          sync.Mutex
	seed        maphash.Seed
	max         int
	strings     map[string]string
	lists       map[uint64]v1.ResourceList
	labels      map[uint64]map[string]string
	tolerations map[uint64][]v1.Toleration
	ports       map[uint64][]v1.ContainerPort
	stringLists map[uint64][]string
	envs        map[uint64][]v1.EnvVar
	owners      map[uint64][]metav1.OwnerReference
	containers  map[uint64][]v1.Container
	conditions  map[uint64][]v1.PodCondition
	int64s      map[int64]*int64
	int32s      map[int32]*int32
	bools       [2]*bool
	emptyPodSC  *v1.PodSecurityContext
	preempt     *v1.PreemptionPolicy
}

// Option configures a Table.
type Option func(*Table)

// WithMaxEntries bounds each kind of value to n entries (n ≥ 1).
func WithMaxEntries(n int) Option {
	return func(t *Table) {
		if n >= 1 {
			t.max = n
		}
	}
}

// New returns an empty Table.
func New(opts ...Option) *Table {
	f, tr := false, true
	preempt := v1.PreemptLowerPriority
	t := &Table{
		seed:        maphash.MakeSeed(),
		max:         DefaultMaxEntries,
		strings:     map[string]string{},
		lists:       map[uint64]v1.ResourceList{},
		labels:      map[uint64]map[string]string{},
		tolerations: map[uint64][]v1.Toleration{},
		ports:       map[uint64][]v1.ContainerPort{},
		stringLists: map[uint64][]string{},
		envs:        map[uint64][]v1.EnvVar{},
		owners:      map[uint64][]metav1.OwnerReference{},
		containers:  map[uint64][]v1.Container{},
		conditions:  map[uint64][]v1.PodCondition{},
		int64s:      map[int64]*int64{},
		int32s:      map[int32]*int32{},
		bools:       [2]*bool{&f, &tr},
		emptyPodSC:  &v1.PodSecurityContext{},
		preempt:     &preempt,
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Transform shares the parts of a *v1.Pod or *v1.Node with earlier objects
// and returns it; other objects are returned as they are. It has the shape
// of client-go's cache.TransformFunc. It is idempotent, and a field already
// holding its canonical value is not written again.
func (t *Table) Transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *v1.Pod:
		t.Pod(o)
	case *v1.Node:
		t.Node(o)
	}
	return obj, nil
}

// Pod makes pod share its labels, annotations, owner references, resource
// lists, tolerations, ports, commands, plain environment, common strings and
// scalar pointers with earlier pods, and then its whole container slices
// when they are equal to a replica's.
func (t *Table) Pod(pod *v1.Pod) {
	if pod == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	setStr(&pod.Namespace, t.str(pod.Namespace))
	setStr(&pod.GenerateName, t.str(pod.GenerateName))
	setMap(&pod.Labels, t.labelMap(pod.Labels))
	setMap(&pod.Annotations, t.labelMap(pod.Annotations))
	if s := t.ownerRefs(pod.OwnerReferences); !sameSlice(s, pod.OwnerReferences) {
		pod.OwnerReferences = s
	}
	spec := &pod.Spec
	for i := range spec.InitContainers {
		t.container(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		t.container(&spec.Containers[i])
	}
	if s := identical(t, t.containers, spec.InitContainers); !sameSlice(s, spec.InitContainers) {
		spec.InitContainers = s
	}
	if s := identical(t, t.containers, spec.Containers); !sameSlice(s, spec.Containers) {
		spec.Containers = s
	}
	if s := t.tolerationList(spec.Tolerations); !sameSlice(s, spec.Tolerations) {
		spec.Tolerations = s
	}
	if spec.SecurityContext != nil && spec.SecurityContext != t.emptyPodSC && reflect.ValueOf(*spec.SecurityContext).IsZero() {
		spec.SecurityContext = t.emptyPodSC
	}
	setStr((*string)(&spec.RestartPolicy), t.str(string(spec.RestartPolicy)))
	setStr((*string)(&spec.DNSPolicy), t.str(string(spec.DNSPolicy)))
	setStr(&spec.ServiceAccountName, t.str(spec.ServiceAccountName))
	setStr(&spec.DeprecatedServiceAccount, t.str(spec.DeprecatedServiceAccount))
	setStr(&spec.NodeName, t.str(spec.NodeName))
	setStr(&spec.SchedulerName, t.str(spec.SchedulerName))
	setStr(&spec.PriorityClassName, t.str(spec.PriorityClassName))
	setPtr(&spec.TerminationGracePeriodSeconds, sharedPtr(t, t.int64s, spec.TerminationGracePeriodSeconds))
	setPtr(&spec.ActiveDeadlineSeconds, sharedPtr(t, t.int64s, spec.ActiveDeadlineSeconds))
	setPtr(&spec.AutomountServiceAccountToken, t.boolPtr(spec.AutomountServiceAccountToken))
	setPtr(&spec.EnableServiceLinks, t.boolPtr(spec.EnableServiceLinks))
	setPtr(&spec.Priority, sharedPtr(t, t.int32s, spec.Priority))
	if p := spec.PreemptionPolicy; p != nil && *p == v1.PreemptLowerPriority {
		// The apiserver's default, the one policy most pods have.
		setPtr(&spec.PreemptionPolicy, t.preempt)
	}
	st := &pod.Status
	setStr((*string)(&st.Phase), t.str(string(st.Phase)))
	setStr((*string)(&st.QOSClass), t.str(string(st.QOSClass)))
	setStr(&st.NominatedNodeName, t.str(st.NominatedNodeName))
	for i := range st.Conditions {
		c := &st.Conditions[i]
		setStr((*string)(&c.Type), t.str(string(c.Type)))
		setStr((*string)(&c.Status), t.str(string(c.Status)))
		setStr(&c.Reason, t.str(c.Reason))
	}
	// Pods bound in the same second carry equal PodScheduled conditions.
	if s := identical(t, t.conditions, st.Conditions); !sameSlice(s, st.Conditions) {
		st.Conditions = s
	}
}

// container shares one container's strings, resource lists and ports.
func (t *Table) container(c *v1.Container) {
	setStr(&c.Name, t.str(c.Name))
	setStr(&c.Image, t.str(c.Image))
	setStr((*string)(&c.ImagePullPolicy), t.str(string(c.ImagePullPolicy)))
	setStr(&c.TerminationMessagePath, t.str(c.TerminationMessagePath))
	setStr((*string)(&c.TerminationMessagePolicy), t.str(string(c.TerminationMessagePolicy)))
	setMap(&c.Resources.Requests, t.resourceList(c.Resources.Requests))
	setMap(&c.Resources.Limits, t.resourceList(c.Resources.Limits))
	if s := t.portList(c.Ports); !sameSlice(s, c.Ports) {
		c.Ports = s
	}
	if s := t.stringList(c.Command); !sameSlice(s, c.Command) {
		c.Command = s
	}
	if s := t.stringList(c.Args); !sameSlice(s, c.Args) {
		c.Args = s
	}
	if s := t.envList(c.Env); !sameSlice(s, c.Env) {
		c.Env = s
	}
}

// identical returns the slice m keeps that is equal to es byte for byte,
// pointers included, or es when none is. It serves slices of structs whose
// parts the table has already made shared (containers, conditions):
// replicas then hold the very same strings, maps and slices, and the
// whole slice (about 400 bytes a container) can be shared. An element
// with a part of its own (a probe, a security context, volume mounts,
// environment read from elsewhere) differs from every other in that
// pointer and keeps its own slice: comparing bytes never takes two
// different values for equal.
func identical[E any](t *Table, m map[uint64][]E, es []E) []E {
	if len(es) == 0 {
		return es
	}
	return shared(t, m, maphash.Bytes(t.seed, rawBytes(es)), es, func(a, b []E) bool {
		return len(a) == len(b) && string(rawBytes(a)) == string(rawBytes(b))
	}, nil)
}

// rawBytes returns the memory of es's elements as bytes.
func rawBytes[E any](es []E) []byte {
	var zero E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(es))), len(es)*int(unsafe.Sizeof(zero)))
}

// Node makes node share its capacity, allocatable resources and the
// strings of its labels, images, system info and conditions with earlier
// nodes. The label map stays the node's own (the hostname differs on every
// node); its strings are shared, as are the names of its images, which
// nodes of a cluster largely have in common and which are long (digests).
func (t *Table) Node(node *v1.Node) {
	if node == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st := &node.Status
	setMap(&st.Capacity, t.resourceList(st.Capacity))
	setMap(&st.Allocatable, t.resourceList(st.Allocatable))
	setStr((*string)(&st.Phase), t.str(string(st.Phase)))
	for i := range st.Conditions {
		c := &st.Conditions[i]
		setStr((*string)(&c.Type), t.str(string(c.Type)))
		setStr((*string)(&c.Status), t.str(string(c.Status)))
		setStr(&c.Reason, t.str(c.Reason))
		setStr(&c.Message, t.str(c.Message))
	}
	setMap(&node.Labels, t.ownStrings(node.Labels))
	for i := range st.Images {
		names := st.Images[i].Names
		for j := range names {
			setStr(&names[j], t.str(names[j]))
		}
	}
	ni := &st.NodeInfo
	for _, s := range []*string{&ni.KernelVersion, &ni.OSImage, &ni.ContainerRuntimeVersion, &ni.KubeletVersion, &ni.KubeProxyVersion, &ni.OperatingSystem, &ni.Architecture} { //nolint:staticcheck // SA1019: nodes still report KubeProxyVersion; interning keeps its string shared.
		setStr(s, t.str(*s))
	}
}

// full empties m when it holds the table's maximum.
func full[K comparable, V any](t *Table, m map[K]V) {
	if len(m) >= t.max {
		clear(m)
	}
}

// shared returns the value m keeps under hash h when it equals v, and v
// itself when an unequal value holds h (a collision leaves v its own).
// Otherwise v becomes the value kept under h, after keep, when not nil, has
// made v's own parts canonical.
func shared[V any](t *Table, m map[uint64]V, h uint64, v V, equal func(a, b V) bool, keep func(V)) V {
	if c, ok := m[h]; ok {
		if equal(c, v) {
			return c
		}
		return v
	}
	full(t, m)
	if keep != nil {
		keep(v)
	}
	m[h] = v
	return v
}

// str returns the canonical copy of s.
func (t *Table) str(s string) string {
	if s == "" {
		return s
	}
	if c, ok := t.strings[s]; ok {
		return c
	}
	full(t, t.strings)
	t.strings[s] = s
	return s
}

func (t *Table) boolPtr(p *bool) *bool {
	if p == nil {
		return nil
	}
	if *p {
		return t.bools[1]
	}
	return t.bools[0]
}

// sharedPtr returns the pointer m keeps to a value equal to *p, keeping p
// when it has none.
func sharedPtr[V comparable](t *Table, m map[V]*V, p *V) *V {
	if p == nil {
		return nil
	}
	if c, ok := m[*p]; ok {
		return c
	}
	full(t, m)
	m[*p] = p
	return p
}

// ownStrings returns m, or, when some of its keys or values are not the
// table's strings yet, a copy of m made of the table's strings: the map
// stays one object's own, its strings are shared.
func (t *Table) ownStrings(m map[string]string) map[string]string {
	interned := true
	for k, v := range m {
		if !sameString(k, t.str(k)) || !sameString(v, t.str(v)) {
			interned = false
			break
		}
	}
	if interned {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[t.str(k)] = t.str(v)
	}
	return out
}

// stringList returns the canonical slice equal to ss (commands, arguments).
func (t *Table) stringList(ss []string) []string {
	if len(ss) == 0 {
		return ss
	}
	var hs maphash.Hash
	hs.SetSeed(t.seed)
	for _, s := range ss {
		hs.WriteString(s)
		hs.WriteByte(0)
	}
	return shared(t, t.stringLists, hs.Sum64(), ss, slices.Equal[[]string], nil)
}

// envList returns the canonical slice equal to env when every variable is
// a plain name and value; variables read from elsewhere (valueFrom) leave
// env the container's own.
func (t *Table) envList(env []v1.EnvVar) []v1.EnvVar {
	if len(env) == 0 {
		return env
	}
	var hs maphash.Hash
	hs.SetSeed(t.seed)
	for i := range env {
		if env[i].ValueFrom != nil {
			return env
		}
		hs.WriteString(env[i].Name)
		hs.WriteByte(0)
		hs.WriteString(env[i].Value)
		hs.WriteByte(0)
	}
	return shared(t, t.envs, hs.Sum64(), env, func(a, b []v1.EnvVar) bool { return slices.EqualFunc(a, b, equalPlainEnv) }, nil)
}

func equalPlainEnv(a, b v1.EnvVar) bool {
	return a.Name == b.Name && a.Value == b.Value && a.ValueFrom == nil && b.ValueFrom == nil
}

// labelMap returns the canonical map equal to m.
func (t *Table) labelMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	var h uint64
	for k, v := range m {
		// The sum does not depend on the map's iteration order.
		h += mix(maphash.String(t.seed, k), maphash.String(t.seed, v))
	}
	return shared(t, t.labels, h, m, maps.Equal[map[string]string], nil)
}

// resourceList returns the canonical list equal to l: the same names, and
// quantities equal in value and format, which print the same.
func (t *Table) resourceList(l v1.ResourceList) v1.ResourceList {
	if len(l) == 0 {
		return l
	}
	var h uint64
	for name, q := range l {
		h += mix(maphash.String(t.seed, string(name)), quantityHash(t.seed, q))
	}
	return shared(t, t.lists, h, l, equalLists, nil)
}

func quantityHash(seed maphash.Seed, q resource.Quantity) uint64 {
	return maphash.Comparable(seed, q.MilliValue()) ^ maphash.String(seed, string(q.Format))
}

func equalLists(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Format != qb.Format || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// tolerationList returns the canonical slice equal to ts.
func (t *Table) tolerationList(ts []v1.Toleration) []v1.Toleration {
	if len(ts) == 0 {
		return ts
	}
	var hs maphash.Hash
	hs.SetSeed(t.seed)
	for i := range ts {
		tol := &ts[i]
		hs.WriteString(tol.Key)
		hs.WriteByte(0)
		hs.WriteString(string(tol.Operator))
		hs.WriteByte(0)
		hs.WriteString(tol.Value)
		hs.WriteByte(0)
		hs.WriteString(string(tol.Effect))
		hs.WriteByte(0)
	}
	equal := func(a, b []v1.Toleration) bool { return slices.EqualFunc(a, b, equalTolerations) }
	return shared(t, t.tolerations, hs.Sum64(), ts, equal, func(ts []v1.Toleration) {
		for i := range ts {
			tol := &ts[i]
			setStr(&tol.Key, t.str(tol.Key))
			setStr((*string)(&tol.Operator), t.str(string(tol.Operator)))
			setStr(&tol.Value, t.str(tol.Value))
			setStr((*string)(&tol.Effect), t.str(string(tol.Effect)))
		}
	})
}

func equalTolerations(a, b v1.Toleration) bool {
	if a.Key != b.Key || a.Operator != b.Operator || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if (a.TolerationSeconds == nil) != (b.TolerationSeconds == nil) {
		return false
	}
	return a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds
}

// ownerRefs returns the canonical slice equal to refs: the pods of one
// ReplicaSet or Job name the same owner.
func (t *Table) ownerRefs(refs []metav1.OwnerReference) []metav1.OwnerReference {
	if len(refs) == 0 {
		return refs
	}
	var hs maphash.Hash
	hs.SetSeed(t.seed)
	for i := range refs {
		hs.WriteString(string(refs[i].UID))
		hs.WriteByte(0)
		hs.WriteString(refs[i].Name)
		hs.WriteByte(0)
	}
	return shared(t, t.owners, hs.Sum64(), refs, func(a, b []metav1.OwnerReference) bool { return slices.EqualFunc(a, b, equalOwners) }, nil)
}

func equalOwners(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		equalBoolPtrs(a.Controller, b.Controller) && equalBoolPtrs(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func equalBoolPtrs(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// portList returns the canonical slice equal to ps.
func (t *Table) portList(ps []v1.ContainerPort) []v1.ContainerPort {
	if len(ps) == 0 {
		return ps
	}
	var h uint64
	for i, p := range ps {
		h = h*31 + maphash.Comparable(t.seed, p) + uint64(i)
	}
	return shared(t, t.ports, h, ps, slices.Equal[[]v1.ContainerPort], nil)
}

// mix combines two hashes so that (a, b) and (b, a) differ.
func mix(a, b uint64) uint64 {
	return (a ^ (b * 0x9e3779b97f4a7c15)) * 0xbf58476d1ce4e5b9
}

// setStr writes c to *p unless *p is already that very string.
func setStr(p *string, c string) {
	if !sameString(*p, c) {
		*p = c
	}
}

// sameString reports whether a and b are the very same string in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// setMap writes c to *p unless *p is already that map.
func setMap[M ~map[K]V, K comparable, V any](p *M, c M) {
	if reflect.ValueOf(*p).UnsafePointer() != reflect.ValueOf(c).UnsafePointer() {
		*p = c
	}
}

// sameSlice reports whether a and b are the very same slice.
func sameSlice[S ~[]E, E any](a, b S) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// setPtr writes c to *p unless *p already is c.
func setPtr[T any](p **T, c *T) {
	if *p != c {
		*p = c
	}
}
