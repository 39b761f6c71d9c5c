/* A host program built against the installed library. */
#include <sandbox.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    sandbox_report report;
    sandbox_policy *p = sandbox_policy_new();
    if (!p || sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY) != SANDBOX_OK)
        return 1;
    if (sandbox_self_test(&report) != SANDBOX_OK)
        return 1;
    printf("libsandbox %s on %s: network %s, filesystem %s\n", sandbox_version(), report.platform,
           report.network.available ? "yes" : "no", report.filesystem.available ? "yes" : "no");
    sandbox_policy_free(p);
    return strcmp(sandbox_version(), SANDBOX_VERSION_STRING) != 0;
}
