/* A connector library whose table has a version exacdf does not load
 * (run_connector_test.sh: create/open must fail with NC_EINVAL). */
#include <exacdf_connector.h>

static const exacdf_connector_class bad = {
    .version = EXACDF_CONNECTOR_VERSION + 1,
    .size = sizeof(exacdf_connector_class),
    .name = "bad_version",
};

EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void) { return &bad; }
