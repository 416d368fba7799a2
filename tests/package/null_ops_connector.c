/* The smallest connector: a table with no calls at all. exacdf forwards
 * every NULL call to the layer below (run_connector_test.sh runs the
 * program through it, alone and stacked between pass-through connectors). */
#include <exacdf_connector.h>

static const exacdf_connector_class null_ops = {
    .version = EXACDF_CONNECTOR_VERSION,
    .size = sizeof(exacdf_connector_class),
    .name = "null_ops",
};

EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void) { return &null_ops; }
