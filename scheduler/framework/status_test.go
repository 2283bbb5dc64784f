package framework

import (
	"slices"
	"testing"
)

func TestNewStatusSharesTheReasonlessSkip(t *testing.T) {
	a, b := NewStatus(Skip), NewStatus(Skip)
	if a != b {
		t.Error("two reasonless Skips are distinct, want one shared status")
	}
	if n := testing.AllocsPerRun(10, func() { _ = NewStatus(Skip) }); n != 0 {
		t.Errorf("NewStatus(Skip) allocates %v times, want 0", n)
	}
	if !a.IsSkip() || a.Plugin() != "" || len(a.Reasons()) != 0 || a.AsError() != nil || !a.Equal(&Status{code: Skip}) {
		t.Errorf("shared Skip = %v, want a plain Skip", a)
	}

	tests := []struct {
		name   string
		status *Status
		shared bool
	}{
		{name: "reasonless Skip", status: NewStatus(Skip), shared: true},
		{name: "Skip with a reason", status: NewStatus(Skip, "why")},
		{name: "reasonless Success", status: NewStatus(Success)},
		{name: "reasonless Unschedulable", status: NewStatus(Unschedulable)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.status == NewStatus(Skip); got != tc.shared {
				t.Fatalf("shared = %v, want %v", got, tc.shared)
			}
			named := tc.status.WithPlugin("P")
			if named.Plugin() != "P" || named.Code() != tc.status.Code() || !slices.Equal(named.Reasons(), tc.status.Reasons()) {
				t.Errorf("WithPlugin(P) = %v, want %v naming P", named, tc.status)
			}
			if (named != tc.status) != tc.shared {
				t.Errorf("WithPlugin returned a copy: %v, want one only of the shared Skip", named != tc.status)
			}
			if again := named.WithPlugin("P"); again != named {
				t.Error("WithPlugin of the plugin already named returned another status")
			}
			if !tc.shared {
				tc.status.AppendReason("more")
				if got := tc.status.Reasons(); got[len(got)-1] != "more" {
					t.Errorf("AppendReason left reasons %v", got)
				}
			}
		})
	}
	if s := NewStatus(Skip); s.Plugin() != "" || len(s.Reasons()) != 0 {
		t.Errorf("the shared Skip was written to: %v", s)
	}
}

func TestAppendReasonOnTheSharedSkipPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("AppendReason on the shared Skip did not panic")
		}
		if s := NewStatus(Skip); len(s.Reasons()) != 0 {
			t.Errorf("the shared Skip was given reasons %v", s.Reasons())
		}
	}()
	NewStatus(Skip).AppendReason("no")
}
