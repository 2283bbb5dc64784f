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

package metricsauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// apiserver fakes the two reviews: tokens maps a token to its user, allowed
// lists who may get which path ("user /metrics"); it counts the reviews.
type apiserver struct {
	tokens             map[string]string
	allowed            map[string]bool
	fail               bool
	tokenReviews, sars int
	lastSAR            authzv1.SubjectAccessReviewSpec
}

func (a *apiserver) filter(t *testing.T, clk *clocktesting.FakeClock) http.Handler {
	t.Helper()
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		a.tokenReviews++
		if a.fail {
			return true, nil, errors.New("apiserver down")
		}
		tr := action.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview).DeepCopy()
		if name, ok := a.tokens[tr.Spec.Token]; ok {
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: name, Groups: []string{"system:authenticated"}}}
		}
		return true, tr, nil
	})
	cs.PrependReactor("create", "subjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		a.sars++
		sar := action.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview).DeepCopy()
		a.lastSAR = sar.Spec
		attrs := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = attrs != nil && attrs.Verb == "get" && a.allowed[sar.Spec.User+" "+attrs.Path]
		return true, sar, nil
	})
	f := New(cs.AuthenticationV1().TokenReviews(), cs.AuthorizationV1().SubjectAccessReviews(), WithClock(clk))
	h, err := f.Wrap(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics")) }))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, header string) int {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name   string
		header string
		fail   bool
		want   int
	}{
		{name: "no token", want: http.StatusUnauthorized},
		{name: "not a bearer token", header: "Basic dXNlcjpwYXNz", want: http.StatusUnauthorized},
		{name: "empty bearer token", header: "Bearer  ", want: http.StatusUnauthorized},
		{name: "unknown token", header: "Bearer nope", want: http.StatusUnauthorized},
		{name: "user without the permission", header: "Bearer nobody-token", want: http.StatusForbidden},
		{name: "reader", header: "Bearer reader-token", want: http.StatusOK},
		{name: "scheme in lower case", header: "bearer reader-token", want: http.StatusOK},
		{name: "apiserver down", header: "Bearer reader-token", fail: true, want: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &apiserver{
				tokens:  map[string]string{"reader-token": "reader", "nobody-token": "nobody"},
				allowed: map[string]bool{"reader /metrics": true},
				fail:    tt.fail,
			}
			if got := get(a.filter(t, clocktesting.NewFakeClock(time.Now())), tt.header); got != tt.want {
				t.Errorf("GET /metrics with %q = %d, want %d", tt.header, got, tt.want)
			}
		})
	}
}

func TestFilterAsksForTheRequestsVerbPathAndGroups(t *testing.T) {
	a := &apiserver{tokens: map[string]string{"t": "reader"}, allowed: map[string]bool{"reader /metrics": true}}
	get(a.filter(t, clocktesting.NewFakeClock(time.Now())), "Bearer t")
	attrs := a.lastSAR.NonResourceAttributes
	if attrs == nil || attrs.Verb != "get" || attrs.Path != "/metrics" || a.lastSAR.User != "reader" ||
		len(a.lastSAR.Groups) != 1 || a.lastSAR.Groups[0] != "system:authenticated" {
		t.Errorf("SubjectAccessReview spec = %+v", a.lastSAR)
	}
}

func TestFilterCachesReviews(t *testing.T) {
	tests := []struct {
		name                     string
		token                    string
		wait                     time.Duration
		want                     int
		wantTokenReviews, wantSA int
	}{
		{name: "allowed, again at once", token: "reader-token", wait: time.Second, want: http.StatusOK, wantTokenReviews: 1, wantSA: 1},
		{name: "allowed, again after the token expired", token: "reader-token", wait: DefaultTokenTTL + time.Second, want: http.StatusOK, wantTokenReviews: 2, wantSA: 1},
		{name: "allowed, again after the decision expired", token: "reader-token", wait: DefaultAllowTTL + time.Second, want: http.StatusOK, wantTokenReviews: 2, wantSA: 2},
		{name: "denied, again within the deny TTL", token: "nobody-token", wait: DefaultDenyTTL - time.Second, want: http.StatusForbidden, wantTokenReviews: 1, wantSA: 1},
		{name: "denied, again after it", token: "nobody-token", wait: DefaultDenyTTL + time.Second, want: http.StatusForbidden, wantTokenReviews: 1, wantSA: 2},
		{name: "rejected token, again at once", token: "nope", wait: time.Second, want: http.StatusUnauthorized, wantTokenReviews: 1, wantSA: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Now())
			a := &apiserver{
				tokens:  map[string]string{"reader-token": "reader", "nobody-token": "nobody"},
				allowed: map[string]bool{"reader /metrics": true},
			}
			h := a.filter(t, clk)
			get(h, "Bearer "+tt.token)
			clk.Step(tt.wait)
			if got := get(h, "Bearer "+tt.token); got != tt.want {
				t.Errorf("second GET = %d, want %d", got, tt.want)
			}
			if a.tokenReviews != tt.wantTokenReviews || a.sars != tt.wantSA {
				t.Errorf("reviews = %d TokenReviews, %d SubjectAccessReviews; want %d, %d", a.tokenReviews, a.sars, tt.wantTokenReviews, tt.wantSA)
			}
		})
	}
}
