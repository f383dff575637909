// bge (I)
#pragma once

BRANCH(bge) { return SRS1 >= SRS2; }
