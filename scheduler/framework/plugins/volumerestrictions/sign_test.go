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

package volumerestrictions

import (
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	pairs := append(signtest.VolumePairs(),
		signtest.Pair{Name: "the same disk", A: st.Pod("a").Volumes(gce("disk", false)).Obj(), B: st.Pod("b").Volumes(gce("disk", false)).Obj(), Same: true},
		signtest.Pair{Name: "the same disk read-only", A: st.Pod("p").Volumes(gce("disk", false)).Obj(), B: st.Pod("p").Volumes(gce("disk", true)).Obj(), Same: false},
		signtest.Pair{Name: "another disk", A: st.Pod("p").Volumes(ebs("vol-1", false)).Obj(), B: st.Pod("p").Volumes(ebs("vol-2", false)).Obj(), Same: false},
		signtest.Pair{Name: "another iSCSI target", A: st.Pod("p").Volumes(iscsi("iqn.a", false)).Obj(), B: st.Pod("p").Volumes(iscsi("iqn.b", false)).Obj(), Same: false},
	)
	signtest.Pairs(t, newPlugin(t, nil), []string{framework.VolumesSignKey}, pairs)
}
