package scheduler

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	pt "github.com/berth-io/berth/scheduler/framework/plugins/plugintest"
)

func TestAssumedCopy(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		host string
	}{
		{name: "plain pod", pod: pt.Pod("p").Obj(), host: "n1"},
		{name: "priority, requests and a nomination", pod: pt.Pod("q").Priority(5).Container("cpu", "500m").Nominated("n2").Obj(), host: "n3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.DeepCopy()
			got := assumedCopy(tt.pod, tt.host)
			if got == tt.pod {
				t.Fatal("assumedCopy returned the pod itself")
			}
			if got.Spec.NodeName != tt.host {
				t.Errorf("spec.nodeName = %q, want %q", got.Spec.NodeName, tt.host)
			}
			if !equality.Semantic.DeepEqual(tt.pod, before) {
				t.Errorf("the original pod changed: %+v", tt.pod)
			}
			want := before.DeepCopy()
			want.Spec.NodeName = tt.host
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("assumed pod = %+v, want %+v", got, want)
			}
		})
	}
}
