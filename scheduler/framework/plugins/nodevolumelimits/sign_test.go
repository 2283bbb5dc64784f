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

package nodevolumelimits

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	csi := func(driver, handle string) v1.VolumeSource {
		return v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: driver, VolumeAttributes: map[string]string{"handle": handle}}}
	}
	pairs := append(signtest.VolumePairs(),
		signtest.Pair{Name: "the same inline CSI volume", A: st.Pod("a").Volumes(csi("d", "1")).Obj(), B: st.Pod("b").Volumes(csi("d", "1")).Obj(), Same: true},
		signtest.Pair{Name: "another CSI driver", A: st.Pod("p").Volumes(csi("d", "1")).Obj(), B: st.Pod("p").Volumes(csi("e", "1")).Obj(), Same: false},
	)
	signtest.Pairs(t, newPlugin(t), []string{framework.VolumesSignKey}, pairs)
}
