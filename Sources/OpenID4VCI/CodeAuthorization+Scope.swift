extension CodeAuthorization {
    /// How the authorization request names the credentials (OpenID4VCI 1.0 sections 5.1.1 and
    /// 5.1.2): the `scope` values of the configurations, or empty for `authorization_details`.
    ///
    /// `authorization_details` when the server lists `openid_credential` in
    /// `authorization_details_types_supported`; otherwise by scope when every configuration has
    /// one (servers that support only `scope` refuse `authorization_details`); otherwise
    /// `authorization_details`, the only way left to name a configuration without a scope.
    public static func scopes(for configurations: [CredentialConfiguration], server: AuthorizationServerMetadata)
        -> [String]
    {
        guard !server.takesCredentialAuthorizationDetails, !configurations.isEmpty else { return [] }
        var scopes: [String] = []
        for configuration in configurations {
            guard let scope = configuration.scope, !scope.isEmpty else { return [] }
            if !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes
    }
}
