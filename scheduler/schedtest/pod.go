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

// Package schedtest is Berth's one set of test fixtures, public for plugin
// authors too: builders of pods, nodes, NodeInfos, snapshots, PodGroups,
// SchedulingProfiles and PluginWeights, and Handle, a fake framework.Handle.
// Berth's own unit tests and envtest suites use it, and test/berthtest's
// NewPod and NewNode return its builders. Every builder starts from a small
// object and each chained call sets one thing; Obj returns the object.
// docs/extending.md shows it in a plugin's tests.
package schedtest

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// PodBuilder builds a pod step by step.
type PodBuilder struct{ pod *v1.Pod }

// Pod starts a pod in namespace "default" with a UID derived from its name.
func Pod(name string) *PodBuilder {
	return &PodBuilder{pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "default", UID: types.UID(name + "-uid"),
	}}}
}

// PodFrom starts a builder from a copy of the pod.
func PodFrom(pod *v1.Pod) *PodBuilder { return &PodBuilder{pod: pod.DeepCopy()} }

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.pod.Namespace = ns; return b }

// UID sets the UID.
func (b *PodBuilder) UID(uid string) *PodBuilder { b.pod.UID = types.UID(uid); return b }

// ResourceVersion sets metadata.resourceVersion.
func (b *PodBuilder) ResourceVersion(rv string) *PodBuilder { b.pod.ResourceVersion = rv; return b }

// Label sets a label.
func (b *PodBuilder) Label(key, value string) *PodBuilder {
	if b.pod.Labels == nil {
		b.pod.Labels = map[string]string{}
	}
	b.pod.Labels[key] = value
	return b
}

// Labels sets the labels to the key/value pairs (empty, not nil, without pairs).
func (b *PodBuilder) Labels(pairs ...string) *PodBuilder { b.pod.Labels = Map(pairs...); return b }

// Annotation sets an annotation.
func (b *PodBuilder) Annotation(key, value string) *PodBuilder {
	if b.pod.Annotations == nil {
		b.pod.Annotations = map[string]string{}
	}
	b.pod.Annotations[key] = value
	return b
}

// Group makes the pod a member of the PodGroup by its label.
func (b *PodBuilder) Group(podGroup string) *PodBuilder {
	return b.Label(v1alpha1.PodGroupLabel, podGroup)
}

// SchedulingGroup makes the pod a member of the scheduling.k8s.io PodGroup
// through spec.schedulingGroup.
func (b *PodBuilder) SchedulingGroup(podGroup string) *PodBuilder {
	b.pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &podGroup}
	return b
}

// Owner adds a controller owner reference whose UID derives from the name.
func (b *PodBuilder) Owner(apiVersion, kind, name string) *PodBuilder {
	yes := true
	b.pod.OwnerReferences = append(b.pod.OwnerReferences, metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(name + "-uid"), Controller: &yes,
	})
	return b
}

// OwnerRefs sets the owner references, replacing any.
func (b *PodBuilder) OwnerRefs(refs ...metav1.OwnerReference) *PodBuilder {
	b.pod.OwnerReferences = refs
	return b
}

// Created sets the creation timestamp.
func (b *PodBuilder) Created(t time.Time) *PodBuilder {
	b.pod.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Terminating sets the deletion timestamp: the pod is being deleted.
func (b *PodBuilder) Terminating(at time.Time) *PodBuilder {
	t := metav1.NewTime(at)
	b.pod.DeletionTimestamp = &t
	return b
}

// Finalizers adds finalizers.
func (b *PodBuilder) Finalizers(names ...string) *PodBuilder {
	b.pod.Finalizers = append(b.pod.Finalizers, names...)
	return b
}

// SchedulerName sets spec.schedulerName.
func (b *PodBuilder) SchedulerName(name string) *PodBuilder {
	b.pod.Spec.SchedulerName = name
	return b
}

// SecurityContext sets spec.securityContext.
func (b *PodBuilder) SecurityContext(sc *v1.PodSecurityContext) *PodBuilder {
	b.pod.Spec.SecurityContext = sc
	return b
}

// Priority sets spec.priority.
func (b *PodBuilder) Priority(p int32) *PodBuilder { b.pod.Spec.Priority = &p; return b }

// PriorityClass sets spec.priorityClassName.
func (b *PodBuilder) PriorityClass(name string) *PodBuilder {
	b.pod.Spec.PriorityClassName = name
	return b
}

// PreemptionPolicy sets spec.preemptionPolicy.
func (b *PodBuilder) PreemptionPolicy(p v1.PreemptionPolicy) *PodBuilder {
	b.pod.Spec.PreemptionPolicy = &p
	return b
}

// requests is the ResourceList of the pairs, nil without pairs.
func requests(pairs []string) v1.ResourceRequirements {
	if len(pairs) == 0 {
		return v1.ResourceRequirements{}
	}
	return v1.ResourceRequirements{Requests: List(pairs...)}
}

// Container adds a container requesting the name/quantity pairs.
func (b *PodBuilder) Container(pairs ...string) *PodBuilder {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{
		Name: "c" + strconv.Itoa(len(b.pod.Spec.Containers)), Resources: requests(pairs),
	})
	return b
}

// Images adds a container running each image.
func (b *PodBuilder) Images(images ...string) *PodBuilder {
	for _, image := range images {
		b.Container()
		b.pod.Spec.Containers[len(b.pod.Spec.Containers)-1].Image = image
	}
	return b
}

// Init adds a run-to-completion init container requesting the pairs.
func (b *PodBuilder) Init(pairs ...string) *PodBuilder {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Name: "i" + strconv.Itoa(len(b.pod.Spec.InitContainers)), Resources: requests(pairs),
	})
	return b
}

// InitImages adds a run-to-completion init container running each image.
func (b *PodBuilder) InitImages(images ...string) *PodBuilder {
	for _, image := range images {
		b.Init()
		b.pod.Spec.InitContainers[len(b.pod.Spec.InitContainers)-1].Image = image
	}
	return b
}

// InitLimit adds a run-to-completion init container limited to the pairs.
func (b *PodBuilder) InitLimit(pairs ...string) *PodBuilder {
	b.Init()
	b.pod.Spec.InitContainers[len(b.pod.Spec.InitContainers)-1].Resources = v1.ResourceRequirements{Limits: List(pairs...)}
	return b
}

// Sidecar adds a restartable init container requesting the pairs.
func (b *PodBuilder) Sidecar(pairs ...string) *PodBuilder {
	always := v1.ContainerRestartPolicyAlways
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Name: "s" + strconv.Itoa(len(b.pod.Spec.InitContainers)), RestartPolicy: &always, Resources: requests(pairs),
	})
	return b
}

// first returns the first container, adding one when the pod has none.
func (b *PodBuilder) first() *v1.Container {
	if len(b.pod.Spec.Containers) == 0 {
		b.Container()
	}
	return &b.pod.Spec.Containers[0]
}

// Req adds the name/quantity pairs to the first container's requests.
func (b *PodBuilder) Req(pairs ...string) *PodBuilder {
	c := b.first()
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	for name, q := range List(pairs...) {
		c.Resources.Requests[name] = q
	}
	return b
}

// Requests sets the first container's requests to the name/quantity pairs, dropping any others.
func (b *PodBuilder) Requests(pairs ...string) *PodBuilder {
	b.first().Resources.Requests = List(pairs...)
	return b
}

// Limit adds the name/quantity pairs to the first container's limits.
func (b *PodBuilder) Limit(pairs ...string) *PodBuilder {
	c := b.first()
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	for name, q := range List(pairs...) {
		c.Resources.Limits[name] = q
	}
	return b
}

// ContainerName names the first container.
func (b *PodBuilder) ContainerName(name string) *PodBuilder { b.first().Name = name; return b }

// ContainerRestart sets the first container's restart policy and rules.
func (b *PodBuilder) ContainerRestart(policy v1.ContainerRestartPolicy, rules ...v1.ContainerRestartRule) *PodBuilder {
	c := b.first()
	c.RestartPolicy = &policy
	c.RestartPolicyRules = rules
	return b
}

// Command sets the first container's command.
func (b *PodBuilder) Command(args ...string) *PodBuilder { b.first().Command = args; return b }

// Env adds an environment variable of the value to the first container.
func (b *PodBuilder) Env(name, value string) *PodBuilder {
	c := b.first()
	c.Env = append(c.Env, v1.EnvVar{Name: name, Value: value})
	return b
}

// EnvFrom adds an environment variable read from the source to the first container.
func (b *PodBuilder) EnvFrom(name string, src *v1.EnvVarSource) *PodBuilder {
	c := b.first()
	c.Env = append(c.Env, v1.EnvVar{Name: name, ValueFrom: src})
	return b
}

// Image sets the first container's image.
func (b *PodBuilder) Image(image string) *PodBuilder { b.first().Image = image; return b }

// Port adds a port to the first container.
func (b *PodBuilder) Port(p v1.ContainerPort) *PodBuilder {
	c := b.first()
	c.Ports = append(c.Ports, p)
	return b
}

// HostPort adds a TCP port the first container exposes on the host too.
func (b *PodBuilder) HostPort(port int32) *PodBuilder {
	return b.Port(v1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: v1.ProtocolTCP})
}

// Overhead sets spec.overhead.
func (b *PodBuilder) Overhead(pairs ...string) *PodBuilder {
	b.pod.Spec.Overhead = List(pairs...)
	return b
}

// PodLevel sets pod-level resource requests.
func (b *PodBuilder) PodLevel(pairs ...string) *PodBuilder {
	b.pod.Spec.Resources = &v1.ResourceRequirements{Requests: List(pairs...)}
	return b
}

// NodeName sets spec.nodeName: the pod is bound.
func (b *PodBuilder) NodeName(n string) *PodBuilder { b.pod.Spec.NodeName = n; return b }

// Nominated sets status.nominatedNodeName.
func (b *PodBuilder) Nominated(n string) *PodBuilder { b.pod.Status.NominatedNodeName = n; return b }

// Gates adds scheduling gates.
func (b *PodBuilder) Gates(names ...string) *PodBuilder {
	for _, n := range names {
		b.pod.Spec.SchedulingGates = append(b.pod.Spec.SchedulingGates, v1.PodSchedulingGate{Name: n})
	}
	return b
}

// Toleration adds a toleration.
func (b *PodBuilder) Toleration(t v1.Toleration) *PodBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, t)
	return b
}

// Tolerate adds a toleration of every taint with the key.
func (b *PodBuilder) Tolerate(key string) *PodBuilder {
	return b.Toleration(v1.Toleration{Key: key, Operator: v1.TolerationOpExists})
}

// TolerateTaint adds a toleration of the taint key=value:effect.
func (b *PodBuilder) TolerateTaint(key, value string, effect v1.TaintEffect) *PodBuilder {
	return b.Toleration(v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: value, Effect: effect})
}

// NodeSelector sets spec.nodeSelector to the key/value pairs (empty, not nil, without pairs).
func (b *PodBuilder) NodeSelector(pairs ...string) *PodBuilder {
	b.pod.Spec.NodeSelector = Map(pairs...)
	return b
}

// Affinity sets spec.affinity.
func (b *PodBuilder) Affinity(a *v1.Affinity) *PodBuilder { b.pod.Spec.Affinity = a; return b }

func (b *PodBuilder) affinity() *v1.Affinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &v1.Affinity{}
	}
	return b.pod.Spec.Affinity
}

func (b *PodBuilder) nodeAffinity() *v1.NodeAffinity {
	a := b.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	return a.NodeAffinity
}

// RequiredNodeAffinity sets the required node-affinity terms (an empty list, without terms).
func (b *PodBuilder) RequiredNodeAffinity(terms ...v1.NodeSelectorTerm) *PodBuilder {
	b.nodeAffinity().RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: terms}
	return b
}

// PreferredNodeAffinity sets the preferred node-affinity terms.
func (b *PodBuilder) PreferredNodeAffinity(terms ...v1.PreferredSchedulingTerm) *PodBuilder {
	b.nodeAffinity().PreferredDuringSchedulingIgnoredDuringExecution = terms
	return b
}

func (b *PodBuilder) podAffinity() *v1.PodAffinity {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	return a.PodAffinity
}

func (b *PodBuilder) podAntiAffinity() *v1.PodAntiAffinity {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	return a.PodAntiAffinity
}

// PodAffinity adds a required pod-affinity term.
func (b *PodBuilder) PodAffinity(t *TermBuilder) *PodBuilder {
	a := b.podAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t.Obj())
	return b
}

// PodAntiAffinity adds a required pod anti-affinity term.
func (b *PodBuilder) PodAntiAffinity(t *TermBuilder) *PodBuilder {
	a := b.podAntiAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t.Obj())
	return b
}

// PreferPodAffinity adds a preferred pod-affinity term of the weight.
func (b *PodBuilder) PreferPodAffinity(weight int32, t *TermBuilder) *PodBuilder {
	a := b.podAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t.Obj()})
	return b
}

// PreferPodAntiAffinity adds a preferred pod anti-affinity term of the weight.
func (b *PodBuilder) PreferPodAntiAffinity(weight int32, t *TermBuilder) *PodBuilder {
	a := b.podAntiAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t.Obj()})
	return b
}

// Spread adds a topology spread constraint.
func (b *PodBuilder) Spread(maxSkew int32, topologyKey string, when v1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector) *PodBuilder {
	b.pod.Spec.TopologySpreadConstraints = append(b.pod.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: topologyKey, WhenUnsatisfiable: when, LabelSelector: sel,
	})
	return b
}

// lastSpread returns the last topology spread constraint; there must be one.
func (b *PodBuilder) lastSpread() *v1.TopologySpreadConstraint {
	cs := b.pod.Spec.TopologySpreadConstraints
	if len(cs) == 0 {
		panic("schedtest: no topology spread constraint to change; call Spread first")
	}
	return &cs[len(cs)-1]
}

// MinDomains sets the last spread constraint's minDomains.
func (b *PodBuilder) MinDomains(n int32) *PodBuilder { b.lastSpread().MinDomains = &n; return b }

// NodeAffinityPolicy sets the last spread constraint's nodeAffinityPolicy.
func (b *PodBuilder) NodeAffinityPolicy(p v1.NodeInclusionPolicy) *PodBuilder {
	b.lastSpread().NodeAffinityPolicy = &p
	return b
}

// NodeTaintsPolicy sets the last spread constraint's nodeTaintsPolicy.
func (b *PodBuilder) NodeTaintsPolicy(p v1.NodeInclusionPolicy) *PodBuilder {
	b.lastSpread().NodeTaintsPolicy = &p
	return b
}

// SpreadMatchLabelKeys sets the last spread constraint's matchLabelKeys.
func (b *PodBuilder) SpreadMatchLabelKeys(keys ...string) *PodBuilder {
	b.lastSpread().MatchLabelKeys = keys
	return b
}

// Volume adds a volume.
func (b *PodBuilder) Volume(name string, src v1.VolumeSource) *PodBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1.Volume{Name: name, VolumeSource: src})
	return b
}

// Volumes adds a volume per source, named v<index> by its place in the pod.
func (b *PodBuilder) Volumes(srcs ...v1.VolumeSource) *PodBuilder {
	for _, src := range srcs {
		b.Volume("v"+strconv.Itoa(len(b.pod.Spec.Volumes)), src)
	}
	return b
}

// PVC adds a volume named after each claim that mounts it.
func (b *PodBuilder) PVC(claims ...string) *PodBuilder {
	for _, c := range claims {
		b.Volume(c, v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c}})
	}
	return b
}

// Ephemeral adds a generic ephemeral volume; its claim is <pod>-<volume>.
func (b *PodBuilder) Ephemeral(volume string) *PodBuilder {
	return b.Volume(volume, v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}})
}

// EmptyDir adds an emptyDir volume.
func (b *PodBuilder) EmptyDir(volume string) *PodBuilder {
	return b.Volume(volume, v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}})
}

// ResourceClaims adds a DRA claim per name, each named in the pod as the claim is.
func (b *PodBuilder) ResourceClaims(claims ...string) *PodBuilder {
	for _, c := range claims {
		b.pod.Spec.ResourceClaims = append(b.pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: c, ResourceClaimName: &c})
	}
	return b
}

// ResourceClaimTemplate adds a DRA claim, named podClaim in the pod, made from the template.
func (b *PodBuilder) ResourceClaimTemplate(podClaim, template string) *PodBuilder {
	b.pod.Spec.ResourceClaims = append(b.pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: podClaim, ResourceClaimTemplateName: &template})
	return b
}

// GeneratedClaim records in status the claim made for the pod's podClaim.
func (b *PodBuilder) GeneratedClaim(podClaim, claim string) *PodBuilder {
	b.pod.Status.ResourceClaimStatuses = append(b.pod.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: podClaim, ResourceClaimName: &claim})
	return b
}

// Phase sets status.phase.
func (b *PodBuilder) Phase(p v1.PodPhase) *PodBuilder { b.pod.Status.Phase = p; return b }

// Reason sets status.reason.
func (b *PodBuilder) Reason(r string) *PodBuilder { b.pod.Status.Reason = r; return b }

// StartTime sets status.startTime.
func (b *PodBuilder) StartTime(t time.Time) *PodBuilder {
	mt := metav1.NewTime(t)
	b.pod.Status.StartTime = &mt
	return b
}

// Condition adds a status condition.
func (b *PodBuilder) Condition(c v1.PodCondition) *PodBuilder {
	b.pod.Status.Conditions = append(b.pod.Status.Conditions, c)
	return b
}

// BoundAt adds the PodScheduled=True condition the apiserver sets when the
// pod is bound, with t as its lastTransitionTime.
func (b *PodBuilder) BoundAt(t time.Time) *PodBuilder {
	return b.Condition(v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(t)})
}

// ContainerStatus adds a container status.
func (b *PodBuilder) ContainerStatus(cs v1.ContainerStatus) *PodBuilder {
	b.pod.Status.ContainerStatuses = append(b.pod.Status.ContainerStatuses, cs)
	return b
}

// InitContainerStatus adds an init container status.
func (b *PodBuilder) InitContainerStatus(cs v1.ContainerStatus) *PodBuilder {
	b.pod.Status.InitContainerStatuses = append(b.pod.Status.InitContainerStatuses, cs)
	return b
}

// Obj returns the pod; later calls on the builder change it.
func (b *PodBuilder) Obj() *v1.Pod { return b.pod }

// Info returns the pod as a PodInfo.
func (b *PodBuilder) Info() *framework.PodInfo {
	pi, err := framework.NewPodInfo(b.pod)
	if err != nil {
		panic(err)
	}
	return pi
}

// Queued returns the pod as a QueuedPodInfo first queued at the time.
func (b *PodBuilder) Queued(at time.Time) *framework.QueuedPodInfo {
	return &framework.QueuedPodInfo{PodInfo: b.Info(), Timestamp: at}
}

// TermBuilder builds a pod (anti-)affinity term.
type TermBuilder struct{ term v1.PodAffinityTerm }

// Term starts a term over the topology key selecting pods with the label pairs.
func Term(topologyKey string, pairs ...string) *TermBuilder {
	return &TermBuilder{term: v1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: Selector(pairs...)}}
}

// Selector replaces the term's label selector; nil selects no pod.
func (t *TermBuilder) Selector(sel *metav1.LabelSelector) *TermBuilder {
	t.term.LabelSelector = sel
	return t
}

// Namespaces lists the namespaces the term selects pods in.
func (t *TermBuilder) Namespaces(ns ...string) *TermBuilder { t.term.Namespaces = ns; return t }

// NamespaceSelector selects the namespaces by label pairs.
func (t *TermBuilder) NamespaceSelector(pairs ...string) *TermBuilder {
	t.term.NamespaceSelector = Selector(pairs...)
	return t
}

// MatchLabelKeys sets matchLabelKeys.
func (t *TermBuilder) MatchLabelKeys(keys ...string) *TermBuilder {
	t.term.MatchLabelKeys = keys
	return t
}

// Obj returns the term.
func (t *TermBuilder) Obj() v1.PodAffinityTerm { return t.term }
