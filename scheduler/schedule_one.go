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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/internal/message"
	"github.com/berth-io/berth/scheduler/apiwrite"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/internal/foreign"
	"github.com/berth-io/berth/scheduler/internal/podlog"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/profile"
)

// Results of a scheduling attempt, as the schedule_attempts_total metric names them.
const (
	resultScheduled     = "scheduled"
	resultUnschedulable = "unschedulable"
	resultError         = "error"
)

// scheduleOne takes one pod from the queue and runs its scheduling cycle; on
// success it hands the binding cycle to a binding goroutine.
func (s *Scheduler) scheduleOne(ctx context.Context) {
	qpi, err := s.queue.Pop(klog.FromContext(ctx))
	if err != nil || qpi == nil {
		return
	}
	pod := qpi.Pod
	logger := podlog.For(ctx, pod)
	ctx = klog.NewContext(ctx, logger)
	cycle := s.queue.SchedulingCycle()

	prof := s.profiles.Get(pod.Spec.SchedulerName)
	if prof == nil {
		// The profile went away after the pod was queued.
		s.park(ctx, pod)
		s.queue.Done(pod.UID)
		return
	}
	if s.skipPod(ctx, pod) {
		s.queue.Done(pod.UID)
		return
	}
	if ref, ok := framework.GroupRefOf(pod); ok && (!ref.Berth || s.workloads.Serves(ref)) {
		// A member of a PodGroup, Kubernetes' own or Berth's, is placed
		// with the rest of its group, in one cycle. One of Kubernetes' own
		// is never placed alone, even when its PodGroup cannot be read
		// (another API version, or GangScheduling left out of the
		// profile): the group cycle holds it until the group can be.
		s.scheduleGroup(ctx, prof, qpi, ref, cycle)
		return
	}

	start := s.clock.Now()
	fwk := prof.Framework
	state := framework.NewCycleState()
	logger.V(3).Info("Attempting to schedule pod", "profile", prof.Source, "generation", prof.Generation)

	// Shadow profiles of this schedulerName, if any, evaluate the pod on
	// the cycle's snapshot on their own goroutine, once the cycle is done.
	s.shadows.Begin(pod, fwk, s.nextStartNodeIndex)
	result, assumed, failure := s.schedulingCycle(ctx, state, fwk, qpi, prof.Decisions != nil, cycle)
	s.shadows.End(result.Host, failure.error())
	if failure != nil {
		s.handleFailure(ctx, prof, qpi, failure, start, cycle)
		return
	}

	s.startBinding(ctx, prof, qpi, state, assumed, result, start, cycle)
}

// startBinding hands an assumed pod, past Permit, to a binding goroutine.
func (s *Scheduler) startBinding(ctx context.Context, prof *profile.Profile, qpi *framework.QueuedPodInfo, state *framework.CycleState, assumed *v1.Pod, result algorithm.Result, start time.Time, cycle int64) {
	logger := klog.FromContext(ctx)
	fwk := prof.Framework
	// A pod held at Permit waits without a binding slot, so a gang larger
	// than the binding concurrency cannot block itself; any other pod takes
	// its slot here, which holds the loop back while every slot is busy.
	waiting := s.waiting.Get(assumed.UID) != nil
	if !waiting {
		s.bindingSlots <- struct{}{}
	}
	s.bindings.Add(1)
	s.bindingPool.run(func() {
		defer s.bindings.Done()
		s.metrics.AddGoroutines(metrics.OperationBinding, 1)
		defer s.metrics.AddGoroutines(metrics.OperationBinding, -1)
		// Binding outlives the scheduling loop's context so that a bind in
		// flight at shutdown completes rather than leaving an assumed pod.
		bindCtx := klog.NewContext(context.WithoutCancel(ctx), logger)
		if !s.bindingCycle(bindCtx, ctx, state, prof, qpi, assumed, result, start, cycle, waiting) {
			return
		}
		if prof.Decisions != nil {
			prof.Decisions.Add(decisions.Decision{
				Pod: assumed.Namespace + "/" + assumed.Name, UID: assumed.UID, Node: result.Host, Generation: prof.Generation,
				Time: s.clock.Now(), Feasible: result.FeasibleNodes, Evaluated: result.EvaluatedNodes, Nodes: result.Top,
				Group: result.Group,
			})
		}
		if s.scheduledEvents == nil {
			return
		}
		// The binding slot is free again; the event is written here, as
		// fast as pods are bound, and abandoned at shutdown.
		s.scheduledEvents.Record(ctx, fwk.ProfileName(), assumed, foreign.ScheduledNote(assumed, result.Host, prof.Source, prof.Generation))
	})
}

// schedulingFailure is why a scheduling or binding cycle did not bind a pod.
type schedulingFailure struct {
	err        error
	nominating *framework.NominatingInfo
	// leftOut is set for a member its PodGroup's successful cycle did not
	// place: it goes back to activeQ at once (AddGroupRemainder).
	leftOut bool
	// groupFailed is set for a member of a PodGroup whose cycle did not
	// schedule the group: it backs off and is retried (AddGroupFailure).
	groupFailed bool
	// published is the nominated node the binding cycle wrote to the pod
	// before it waited, if it did; the informer's copy may not show it yet.
	published string
}

// error is why the cycle failed, nil when it did not.
func (f *schedulingFailure) error() error {
	if f == nil {
		return nil
	}
	return f.err
}

// clearNomination clears a pod's nominated node when its binding cycle
// fails, as kube-scheduler does: the node it was going to is no longer
// where it goes.
func clearNomination() *framework.NominatingInfo {
	return &framework.NominatingInfo{NominatingMode: framework.ModeOverride}
}

// skipPod reports whether the pod needs no cycle: it is being deleted, or it
// is already assumed (an update of it came through the queue).
func (s *Scheduler) skipPod(ctx context.Context, pod *v1.Pod) bool {
	if pod.DeletionTimestamp != nil {
		klog.FromContext(ctx).V(3).Info("Skipping a pod that is being deleted")
		return true
	}
	if assumed, _ := s.cache.IsAssumedPod(pod); assumed {
		klog.FromContext(ctx).V(3).Info("Skipping a pod that is already assumed")
		return true
	}
	return false
}

// schedulingCycle picks a node, assumes the pod there, and runs Reserve and
// Permit. It returns the assumed copy of the pod; with record, the result
// keeps the scores that chose its node.
func (s *Scheduler) schedulingCycle(ctx context.Context, state *framework.CycleState, fwk *runtime.Framework, qpi *framework.QueuedPodInfo, record bool, cycle int64) (algorithm.Result, *v1.Pod, *schedulingFailure) {
	logger := klog.FromContext(ctx)
	pod := qpi.Pod

	result, err := s.schedulePod(ctx, fwk, state, pod, record, cycle)
	if err != nil {
		var fitErr *framework.FitError
		if !errors.As(err, &fitErr) || !fwk.HasPostFilterPlugins() {
			return result, nil, &schedulingFailure{err: err}
		}
		postResult, st := fwk.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
		var nominating *framework.NominatingInfo
		if postResult != nil {
			nominating = postResult.NominatingInfo
		}
		// As upstream, the PostFilter message (a successful preemption's too)
		// ends the pod's FailedScheduling message.
		fitErr.Diagnosis.PostFilterMsg = st.Message()
		if st.Code() == framework.Error {
			logger.Error(st.AsError(), "PostFilter failed")
		}
		return result, nil, &schedulingFailure{err: fitErr, nominating: nominating}
	}

	assumed, failure := s.commit(ctx, fwk, state, pod, result.Host)
	if failure != nil {
		return result, nil, failure
	}
	return result, assumed, nil
}

// commit assumes the pod on host in the cache and runs Reserve and
// Permit: the end of a pod's scheduling cycle, and of each member's of a
// group that fits. A failure leaves nothing assumed or reserved.
func (s *Scheduler) commit(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, host string) (*v1.Pod, *schedulingFailure) {
	assumed := algorithm.AssumedCopy(pod, host)
	if err := s.cache.AssumePod(klog.FromContext(ctx), assumed); err != nil {
		return nil, &schedulingFailure{err: fmt.Errorf("assuming pod on node %s: %w", host, err)}
	}
	// Once assumed, the pod's nomination has served its purpose.
	s.queue.DeleteNominatedPodIfExists(assumed)
	if st := fwk.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
		s.forget(ctx, assumed)
		return nil, &schedulingFailure{err: algorithm.StatusError(st, host, s.snapshot.NumNodes())}
	}
	if st := fwk.RunPermitPlugins(ctx, state, assumed, host); !st.IsWait() && !st.IsSuccess() {
		fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
		s.forget(ctx, assumed)
		return nil, &schedulingFailure{err: algorithm.StatusError(st, host, s.snapshot.NumNodes())}
	}
	return assumed, nil
}

// schedulePod brings the snapshot up to date and finds the best node for
// the pod; with record, the result keeps the chosen node's scores and its
// best runners-up.
func (s *Scheduler) schedulePod(ctx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, record bool, cycle int64) (algorithm.Result, error) {
	if err := s.updateSnapshot(ctx); err != nil {
		return algorithm.Result{}, fmt.Errorf("updating the snapshot: %w", err)
	}
	env := s.loopEnv(fwk, record, cycle)
	if s.shadows.Pending() {
		env.OnSearch = s.shadows.NoteSearch
	}
	return algorithm.SchedulePod(ctx, env, state, pod)
}

// env is the algorithm's environment for a cycle of fwk on the loop's
// snapshot.
func (s *Scheduler) env(fwk *runtime.Framework, record bool) algorithm.Env {
	return algorithm.Env{Framework: fwk, Snapshot: s.snapshot, Rand: s.rand, Next: &s.nextStartNodeIndex, Record: record}
}

// loopEnv is env for the scheduling loop's own cycle number cycle: the
// profile's opportunistic batching, if it batches, takes part.
func (s *Scheduler) loopEnv(fwk *runtime.Framework, record bool, cycle int64) algorithm.Env {
	env := s.env(fwk, record)
	env.Batch, env.Cycle = fwk.Batch(), cycle
	return env
}

// bindingCycle waits for Permit if the pod is held there, then takes a
// binding slot, and runs PreBind, Bind and PostBind; a PreBind with work
// runs without the slot, and is cancelled when loopCtx, the scheduling
// loop's, ends: its wait on other components is abandoned at shutdown while
// a bind in flight completes. It reports whether the pod was bound; the
// slot is free again when it returns.
func (s *Scheduler) bindingCycle(ctx, loopCtx context.Context, state *framework.CycleState, prof *profile.Profile, qpi *framework.QueuedPodInfo, assumed *v1.Pod, result algorithm.Result, start time.Time, cycle int64, waiting bool) bool {
	logger := klog.FromContext(ctx)
	fwk := prof.Framework
	published := ""
	fail := func(st *framework.Status) {
		fwk.RunReservePluginsUnreserve(ctx, state, assumed, result.Host)
		s.forget(ctx, assumed)
		// The forgotten pod freed room on its node; others may fit now. A
		// rejected pod is not moved by the room it gave back itself: as in
		// kube-scheduler, it waits for an event that its rejecting plugin
		// cares about, so the move comes after its requeue and passes it by.
		freed := roomFreed()
		if st.IsRejected() {
			defer s.queue.MoveAllToActiveOrBackoffQueue(logger, freed, assumed, nil, func(p *v1.Pod) bool { return p.UID != assumed.UID })
		} else {
			s.queue.MoveAllToActiveOrBackoffQueue(logger, freed, assumed, nil, nil)
		}
		s.handleFailure(ctx, prof, qpi, &schedulingFailure{
			err:        algorithm.StatusError(st, result.Host, s.snapshot.NumNodes()),
			nominating: clearNomination(),
			published:  published,
		}, start, cycle)
	}
	// A pod about to wait says where it is going first.
	nominate := func() {
		if published == "" {
			apiwrite.PublishNomination(ctx, s.client, qpi.Pod, result.Host)
			published = result.Host
		}
	}

	if waiting {
		nominate()
		if st := fwk.WaitOnPermit(ctx, assumed); !st.IsSuccess() {
			fail(st)
			return false
		}
		s.bindingSlots <- struct{}{}
	}
	held := true
	defer func() {
		if held {
			<-s.bindingSlots
		}
	}()
	// A PreBind with work (claims to bind) waits on other components, for
	// minutes if a provisioner is slow. It must not hold a binding slot
	// meanwhile: a few such pods would otherwise stop the scheduling loop,
	// which waits for a slot, for every profile. kube-scheduler binds each
	// pod in a goroutine of its own; here the slot is given back for the
	// wait and taken again, by this goroutine, for the bind itself.
	preFlight := fwk.RunPreBindPreFlights(ctx, state, assumed, result.Host)
	if !preFlight.IsSuccess() && !preFlight.IsSkip() {
		fail(preFlight)
		return false
	}
	preBindWaits := preFlight.IsSuccess()
	if preBindWaits {
		<-s.bindingSlots
		held = false
		nominate()
	}
	if st := s.runPreBind(ctx, loopCtx, fwk, state, assumed, result.Host, preBindWaits); !st.IsSuccess() {
		fail(st)
		return false
	}
	if !held {
		s.bindingSlots <- struct{}{}
		held = true
	}
	// A failure's PodScheduled patch from an earlier attempt must not
	// land after the binding, which sets the condition itself.
	s.statusPatcher.Supersede(ctx, assumed.UID)
	// Whatever the bind's outcome, a pod seen bound from now on may be
	// this scheduler's doing (a reply can be lost), not another scheduler's.
	s.foreign.Binding(assumed.UID)
	handled, st := fwk.RunExtenderBind(ctx, assumed, result.Host)
	if !handled {
		st = fwk.RunBindPlugins(ctx, state, assumed, result.Host)
	}
	if !st.IsSuccess() {
		if node, ok := foreign.BoundElsewhere(st.AsError()); ok && s.foreign.LostBindRace(logger, assumed, prof.Source) {
			s.lostBindRace(ctx, prof, state, assumed, result.Host, node, start)
			return false
		}
		s.foreign.BindFailed(assumed.UID, st.AsError())
		fail(st)
		return false
	}
	if err := s.cache.FinishBinding(logger, assumed); err != nil {
		logger.Error(err, "Finishing the binding in the cache")
	}
	fwk.RunPostBindPlugins(ctx, state, assumed, result.Host)

	s.metrics.ObserveScheduleAttempt(resultScheduled, fwk.ProfileName(), s.clock.Since(start))
	if qpi.InitialAttemptTimestamp != nil {
		s.metrics.ObservePodSchedulingSLI(qpi.Attempts, s.clock.Since(*qpi.InitialAttemptTimestamp))
	}
	s.metrics.ObservePodScheduled(qpi.Attempts)
	logger.V(2).Info("Bound pod", "node", klog.KRef("", result.Host), "evaluatedNodes", result.EvaluatedNodes,
		"feasibleNodes", result.FeasibleNodes, "profile", prof.Source, "generation", prof.Generation)
	s.queue.Done(assumed.UID)
	return true
}

// roomFreed is the event of an assumed pod let go: its node has room again.
func roomFreed() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete, CustomLabel: "AssignedPodDelete"}
}

// lostBindRace lets go of a pod whose bind to host the apiserver refused
// because another scheduler bound it to node first: the pod leaves the
// cache and the queue with nothing written to it, since it is bound, and
// the informer brings its bound copy.
func (s *Scheduler) lostBindRace(ctx context.Context, prof *profile.Profile, state *framework.CycleState, assumed *v1.Pod, host, node string, start time.Time) {
	fwk := prof.Framework
	fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
	s.forget(ctx, assumed)
	freed := roomFreed()
	s.queue.MoveAllToActiveOrBackoffQueue(klog.FromContext(ctx), freed, assumed, nil, func(p *v1.Pod) bool { return p.UID != assumed.UID })
	s.metrics.ObserveScheduleAttempt(resultError, fwk.ProfileName(), s.clock.Since(start))
	klog.FromContext(ctx).Info("Another scheduler bound the pod before this scheduler's bind; leaving it there",
		"node", klog.KRef("", node), "triedNode", klog.KRef("", host), "profile", prof.Source)
	s.queue.Done(assumed.UID)
}

// runPreBind runs the PreBind plugins; when they may wait, they are
// cancelled once loopCtx ends.
func (s *Scheduler) runPreBind(ctx, loopCtx context.Context, fwk *runtime.Framework, state *framework.CycleState, pod *v1.Pod, node string, mayWait bool) *framework.Status {
	if !mayWait {
		return fwk.RunPreBindPlugins(ctx, state, pod, node)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(loopCtx, cancel)
	defer stop()
	return fwk.RunPreBindPlugins(ctx, state, pod, node)
}

// forget drops an assumed pod from the cache, unless the informer has
// meanwhile confirmed it (someone else bound it) or removed it.
func (s *Scheduler) forget(ctx context.Context, assumed *v1.Pod) {
	if isAssumed, _ := s.cache.IsAssumedPod(assumed); !isAssumed {
		return
	}
	if err := s.cache.ForgetPod(klog.FromContext(ctx), assumed); err != nil {
		klog.FromContext(ctx).Error(err, "Forgetting the assumed pod")
	}
}

// handleFailure requeues a pod that was not bound, and tells its owner why
// through the PodScheduled condition and a FailedScheduling event. A pod that
// was deleted or bound by someone else meanwhile is dropped quietly.
func (s *Scheduler) handleFailure(ctx context.Context, prof *profile.Profile, qpi *framework.QueuedPodInfo, failure *schedulingFailure, start time.Time, cycle int64) {
	logger := klog.FromContext(ctx)
	fwk := prof.Framework
	pod := qpi.Pod
	defer s.queue.Done(pod.UID)

	reason := v1.PodReasonSchedulerError
	result := resultError
	var (
		fitErr   *framework.FitError
		groupErr *groupUnschedulableError
	)
	if errors.As(failure.err, &fitErr) || errors.As(failure.err, &groupErr) || errors.Is(failure.err, algorithm.ErrNoNodes) {
		reason = v1.PodReasonUnschedulable
		result = resultUnschedulable
	}
	// The queue reads these to decide which events may help the pod; a
	// failure that names no plugin counts as an error and backs off.
	switch {
	case fitErr != nil:
		qpi.UnschedulablePlugins = fitErr.Diagnosis.UnschedulablePlugins
		qpi.PendingPlugins = fitErr.Diagnosis.PendingPlugins
	case groupErr != nil:
		qpi.UnschedulablePlugins = groupErr.plugins.Clone()
		qpi.PendingPlugins = nil
	default:
		qpi.UnschedulablePlugins, qpi.PendingPlugins = nil, nil
	}
	s.metrics.ObserveScheduleAttempt(result, fwk.ProfileName(), s.clock.Since(start))

	current, err := s.podLister.Pods(pod.Namespace).Get(pod.Name)
	switch {
	case apierrors.IsNotFound(err) || (err == nil && current.UID != pod.UID):
		logger.V(3).Info("Pod was deleted while it was being scheduled; dropping it")
		return
	case err != nil:
		logger.Error(err, "Reading the pod from the informer cache")
		return
	case current.Spec.NodeName != "":
		logger.V(3).Info("Pod was bound by someone else while it was being scheduled; dropping it", "node", klog.KRef("", current.Spec.NodeName))
		return
	}

	// Requeue the informer's newest copy of the pod.
	if err := qpi.PodInfo.Update(current.DeepCopy()); err != nil {
		logger.Error(err, "Refreshing the pod's info")
	}
	if s.profiles.Get(current.Spec.SchedulerName) == nil {
		s.park(ctx, current)
	} else if failure.leftOut {
		if err := s.queue.AddGroupRemainder(logger, qpi, cycle); err != nil {
			logger.Error(err, "Requeueing the pod")
		}
	} else if failure.groupFailed {
		if err := s.queue.AddGroupFailure(logger, qpi, result == resultError, cycle); err != nil {
			logger.Error(err, "Requeueing the pod")
		}
	} else if err := s.queue.AddUnschedulableIfNotPresent(logger, qpi, cycle); err != nil {
		logger.Error(err, "Requeueing the pod")
	}

	nominated := ""
	if failure.nominating.Mode() == framework.ModeOverride {
		nominated = failure.nominating.NominatedNodeName
		s.queue.AddNominatedPod(qpi.PodInfo, failure.nominating)
	}

	msg := message.Truncate(failure.err.Error())
	if result == resultError {
		logger.Error(failure.err, "Error scheduling pod; retrying")
	} else {
		logger.V(2).Info("Unable to schedule pod; waiting", "reason", msg)
	}
	fwk.EventRecorder().Eventf(current, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "%s", msg)
	s.statusPatcher.SendNotScheduled(ctx, current, apiwrite.NotScheduled{
		Reason: reason, Message: msg, NominatedNode: nominated,
		Nominate: failure.nominating.Mode() == framework.ModeOverride, Published: failure.published,
	}, s.clock.Now())
}
