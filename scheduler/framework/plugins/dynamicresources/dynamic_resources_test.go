package dynamicresources

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/plugintest"
)

func withClaim(pod *v1.Pod) *v1.Pod {
	name := "gpu"
	pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}
	return pod
}

func TestPreFilter(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantCode framework.Code
		wantMsg  string
	}{
		{name: "no claims are skipped", pod: plugintest.Pod("p").Obj(), wantCode: framework.Skip},
		{name: "claims are refused", pod: withClaim(plugintest.Pod("p").Obj()), wantCode: framework.UnschedulableAndUnresolvable, wantMsg: ErrReasonUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := New(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, st := pl.(framework.PreFilterPlugin).PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if st.Code() != tt.wantCode {
				t.Fatalf("code = %v, want %v", st.Code(), tt.wantCode)
			}
			if tt.wantMsg != "" && st.Message() != tt.wantMsg {
				t.Errorf("message = %q, want %q", st.Message(), tt.wantMsg)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr []string
	}{
		{name: "none"},
		{name: "valid timeouts", args: `{"kind":"DynamicResourcesArgs","filterTimeout":"10s","bindingTimeout":"600s"}`},
		{name: "wrong kind", args: `{"kind":"NodeAffinityArgs"}`, wantErr: []string{"must be DynamicResourcesArgs"}},
		{name: "both invalid", args: `{"filterTimeout":"-1s","bindingTimeout":"500ms"}`,
			wantErr: []string{"filterTimeout: Invalid value", "must be zero or positive", "bindingTimeout: Invalid value", "must be at least 1 second"}},
		{name: "unknown field", args: `{"timeout":"1s"}`, wantErr: []string{"timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			if tt.args != "" {
				raw = []byte(tt.args)
			}
			_, err := New(context.Background(), raw, nil)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
