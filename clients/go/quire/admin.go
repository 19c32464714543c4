package quire

import (
	"context"
	"iter"

	"google.golang.org/grpc"

	"github.com/quire/quire/clients/go/quirev1"
)

// Every AdminService call needs a key with scope `admin`.

// SetRetrievalPolicy sets the organisation's retrieval mode and/or search limit bound
// (RETRIEVAL_MODE_UNSPECIFIED / 0 leave a setting unchanged).
func (c *Client) SetRetrievalPolicy(ctx context.Context, req *quirev1.SetRetrievalPolicyRequest) (*quirev1.RetrievalPolicy, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.SetRetrievalPolicyRequest) (*quirev1.SetRetrievalPolicyResponse, error) {
		return c.admin.SetRetrievalPolicy(ctx, r)
	})
	return resp.GetPolicy(), err
}

// GetRetrievalPolicy returns the organisation's retrieval policy.
func (c *Client) GetRetrievalPolicy(ctx context.Context) (*quirev1.RetrievalPolicy, error) {
	resp, err := unary(ctx, &quirev1.GetRetrievalPolicyRequest{}, func(ctx context.Context, r *quirev1.GetRetrievalPolicyRequest) (*quirev1.GetRetrievalPolicyResponse, error) {
		return c.admin.GetRetrievalPolicy(ctx, r)
	})
	return resp.GetPolicy(), err
}

// SetKillSwitch engages (or releases) the deployment-wide kill switch (LEGACY_FTS everywhere).
func (c *Client) SetKillSwitch(ctx context.Context, engaged bool) (*quirev1.RetrievalPolicy, error) {
	req := &quirev1.SetKillSwitchRequest{Engaged: engaged}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.SetKillSwitchRequest) (*quirev1.SetKillSwitchResponse, error) {
		return c.admin.SetKillSwitch(ctx, r)
	})
	return resp.GetPolicy(), err
}

// SetNamespaceSearchConfig stores a namespace's planner overrides and returns the stored config.
// Out-of-range values fail with ErrInvalidRequest naming each field in FieldViolations().
func (c *Client) SetNamespaceSearchConfig(ctx context.Context, req *quirev1.SetNamespaceSearchConfigRequest) (*quirev1.PageSearchConfig, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.SetNamespaceSearchConfigRequest) (*quirev1.SetNamespaceSearchConfigResponse, error) {
		return c.admin.SetNamespaceSearchConfig(ctx, r)
	})
	return resp.GetConfig(), err
}

// RebuildIndex builds generation g+1 of a collection's index beside g, then flips; with
// req.EmbeddingModel, g+1 is embedded with that model (empty keeps the serving generation's).
func (c *Client) RebuildIndex(ctx context.Context, req *quirev1.RebuildIndexRequest) (*quirev1.IndexStatus, error) {
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.RebuildIndexRequest) (*quirev1.RebuildIndexResponse, error) {
		return c.admin.RebuildIndex(ctx, r)
	})
	return resp.GetStatus(), err
}

// RollbackIndex serves the previous READY/RETIRED generation again.
func (c *Client) RollbackIndex(ctx context.Context, collectionID string) (*quirev1.IndexStatus, error) {
	req := &quirev1.RollbackIndexRequest{CollectionId: collectionID}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.RollbackIndexRequest) (*quirev1.RollbackIndexResponse, error) {
		return c.admin.RollbackIndex(ctx, r)
	})
	return resp.GetStatus(), err
}

// RunGate runs the FTS baseline gate; it yields GateProgress messages (GetProgress()) and
// finally the GateResult (GetResult()). Default deadline: 2 h.
func (c *Client) RunGate(ctx context.Context, req *quirev1.RunGateRequest) iter.Seq2[*quirev1.RunGateResponse, error] {
	return serverStream(ctx, c, "RunGate", req,
		func(ctx context.Context, r *quirev1.RunGateRequest) (grpc.ServerStreamingClient[quirev1.RunGateResponse], error) {
			return c.admin.RunGate(ctx, r)
		},
		func(m *quirev1.RunGateResponse) *quirev1.RunGateResponse { return m })
}

// GetGateStatus returns the latest gate result for the current fingerprint (Result is nil
// when none) and the CurrentFingerprint.
func (c *Client) GetGateStatus(ctx context.Context) (*quirev1.GetGateStatusResponse, error) {
	return unary(ctx, &quirev1.GetGateStatusRequest{}, func(ctx context.Context, r *quirev1.GetGateStatusRequest) (*quirev1.GetGateStatusResponse, error) {
		return c.admin.GetGateStatus(ctx, r)
	})
}

// GetShadowReport summarises the organisation's HYBRID_SHADOW comparisons.
func (c *Client) GetShadowReport(ctx context.Context) (*quirev1.ShadowReport, error) {
	resp, err := unary(ctx, &quirev1.GetShadowReportRequest{}, func(ctx context.Context, r *quirev1.GetShadowReportRequest) (*quirev1.GetShadowReportResponse, error) {
		return c.admin.GetShadowReport(ctx, r)
	})
	return resp.GetReport(), err
}

// CreateAPIKey creates a key of the caller's organisation; Secret is shown only here.
func (c *Client) CreateAPIKey(ctx context.Context, scopes ...quirev1.Scope) (*quirev1.ApiKey, error) {
	req := &quirev1.CreateApiKeyRequest{Scopes: scopes}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.CreateApiKeyRequest) (*quirev1.CreateApiKeyResponse, error) {
		return c.admin.CreateApiKey(ctx, r)
	})
	return resp.GetKey(), err
}

// RevokeAPIKey revokes a key of the caller's organisation.
func (c *Client) RevokeAPIKey(ctx context.Context, keyID string) error {
	req := &quirev1.RevokeApiKeyRequest{KeyId: keyID}
	_, err := unary(ctx, req, func(ctx context.Context, r *quirev1.RevokeApiKeyRequest) (*quirev1.RevokeApiKeyResponse, error) {
		return c.admin.RevokeApiKey(ctx, r)
	})
	return err
}

// CreateNamedAPIKey is CreateAPIKey with a name that labels the key in ListAPIKeys (at most 64
// characters).
func (c *Client) CreateNamedAPIKey(ctx context.Context, name string, scopes ...quirev1.Scope) (*quirev1.ApiKey, error) {
	req := &quirev1.CreateApiKeyRequest{Scopes: scopes, Name: name}
	resp, err := unary(ctx, req, func(ctx context.Context, r *quirev1.CreateApiKeyRequest) (*quirev1.CreateApiKeyResponse, error) {
		return c.admin.CreateApiKey(ctx, r)
	})
	return resp.GetKey(), err
}

// ListAPIKeys returns the organisation's live keys, newest first (Keys, Truncated); never
// their secrets.
func (c *Client) ListAPIKeys(ctx context.Context) (*quirev1.ListApiKeysResponse, error) {
	return unary(ctx, &quirev1.ListApiKeysRequest{}, func(ctx context.Context, r *quirev1.ListApiKeysRequest) (*quirev1.ListApiKeysResponse, error) {
		return c.admin.ListApiKeys(ctx, r)
	})
}

// WhoAmI returns the caller's organisation, key (no secret), retrieval policy and limits.
func (c *Client) WhoAmI(ctx context.Context) (*quirev1.WhoAmIResponse, error) {
	return unary(ctx, &quirev1.WhoAmIRequest{}, func(ctx context.Context, r *quirev1.WhoAmIRequest) (*quirev1.WhoAmIResponse, error) {
		return c.admin.WhoAmI(ctx, r)
	})
}
